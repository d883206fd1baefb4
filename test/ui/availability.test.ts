import { randomUUID } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, inject, it } from 'vitest'
import { clientAs } from './api.ts'
import { browserPages, inspect } from './helpers.ts'
import { executeSqlFile } from './wrangler-dev.ts'

// A probe's availability for 24 h / 7 d / 30 d / 90 d and its latency percentiles, from a seeded history: one
// hour down three hours ago, and the last 24 hourly rollups with p50 90 ms, p95 200 ms and p99 350 ms (and
// their daily sums, as the monitor writes both).

const pages = browserPages()
const HOUR = 3_600_000

async function seedHistory(probeId: string): Promise<void> {
  const now = Date.now()
  const hour = Math.floor(now / HOUR) * HOUR
  const sql = `
INSERT INTO probe_results (probe_id, kind, at, state, previous_state) VALUES
  ('${probeId}', 'event', ${now - 3 * HOUR}, 'down', 'up'),
  ('${probeId}', 'event', ${now - 2 * HOUR}, 'up', 'down');
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 23)
INSERT INTO probe_rollups (probe_id, granularity, bucket_start, up, down, degraded, latency_sum_ms, latency_count,
  latency_max_ms, latency_p50_ms, latency_p95_ms, latency_p99_ms)
  SELECT '${probeId}', 'hourly', ${hour} - i * ${HOUR}, 60, 0, 0, 6000, 60, 400, 90, 200, 350 FROM n;
INSERT INTO probe_rollups (probe_id, granularity, bucket_start, up, down, degraded, latency_sum_ms, latency_count,
  latency_max_ms)
  SELECT probe_id, 'daily', bucket_start - bucket_start % ${24 * HOUR}, sum(up), sum(down), sum(degraded),
    sum(latency_sum_ms), sum(latency_count), max(latency_max_ms)
  FROM probe_rollups WHERE probe_id = '${probeId}' AND granularity = 'hourly'
  GROUP BY bucket_start - bucket_start % ${24 * HOUR};
`
  const file = path.join(tmpdir(), `panel-ui-availability-${probeId}.sql`)
  writeFileSync(file, sql)
  await executeSqlFile(inject('ui').persistTo, file)
}

describe('a probe’s availability', () => {
  it('shows the figures of each window and plots the latency percentiles', async () => {
    const admin = await clientAs()
    const probe = await admin.probes.create({
      name: `ui-availability-${randomUUID().slice(0, 8)}`,
      type: 'heartbeat',
      targetKind: 'external',
      target: 'nightly export',
      enabled: false,
    })
    await seedHistory(probe.id)
    const page = await pages.open('admin', `/monitoring/probes/${probe.id}`)
    const section = page.getByRole('region', { name: 'Availability' })
    const day = section.getByTestId('availability-1d').getByRole('cell')
    expect(await day.allTextContents()).toEqual([
      expect.stringMatching(/^9\d\.\d\d %$/),
      '1 h',
      '1',
      '1 h',
      '0 s',
      '1440',
    ])
    for (const days of [7, 30, 90]) {
      const cells = await section.getByTestId(`availability-${days}d`).getByRole('cell').allTextContents()
      expect(cells.slice(1)).toEqual(['1 h', '1', '1 h', '0 s', '1440'])
    }
    const csv = await section.getByRole('link', { name: 'The 90 days per day (CSV)' }).getAttribute('href')
    const answer = await page.evaluate(`fetch(${JSON.stringify(csv)}).then((r) => r.text())`)
    expect(String(answer).split('\r\n')[0]).toBe(
      'date,from,to,uptime_ratio,downtime_seconds,incidents,longest_incident_seconds,maintenance_seconds,checks',
    )

    const chart = page.locator('figure.chart')
    await chart.locator('canvas').waitFor()
    await chart.locator('.u-over').hover()
    const legend = chart.locator('.u-legend .u-series')
    const value = (label: string) =>
      legend.filter({ has: page.locator('.u-label', { hasText: label }) }).locator('.u-value')
    await expect.poll(() => value('p95 ms').textContent()).toBe('200')
    expect(await value('p50 ms').textContent()).toBe('90')
    expect(await value('p99 ms').textContent()).toBe('350')
    await inspect(page, 'probe-availability')
  })
})
