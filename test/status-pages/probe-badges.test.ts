import { beforeAll, describe, expect, it } from 'vitest'
import { type Caller, ok, send } from '../helpers/http'
import { adminSession } from '../helpers/principals'
import { workerEnv } from '../probes/catalogue-fixture'
import { createStatusPage, quietProbe } from './fixture'

const MINUTE = 60_000
const HOUR = 60 * MINUTE

let admin: Caller

beforeAll(async () => {
  admin = await adminSession()
})

async function setState(probeId: string, state: string): Promise<void> {
  await workerEnv.DB.prepare('update probes set state = ?, last_changed_at = ? where id = ?')
    .bind(state, Date.now() - HOUR, probeId)
    .run()
}

/** A public page listing one probe as "Website", up, that was down 48 minutes six hours ago. */
async function listedProbe(fields: Record<string, unknown> = {}) {
  const probe = await quietProbe(admin, fields)
  await setState(probe.id, 'up')
  const now = Date.now()
  const insert = workerEnv.DB.prepare(
    `insert into probe_results (probe_id, kind, at, state, previous_state) values (?1, 'event', ?2, ?3, ?4)`,
  )
  await workerEnv.DB.batch([
    insert.bind(probe.id, now - 6 * HOUR, 'down', 'up'),
    insert.bind(probe.id, now - 6 * HOUR + 48 * MINUTE, 'up', 'down'),
  ])
  const page = await createStatusPage(admin, {
    public: true,
    groups: [{ name: 'Web', probes: [{ probeId: probe.id, displayName: 'Website' }] }],
  })
  return { probe, page }
}

const badge = (slug: string, probeId: string, file: string, headers: Record<string, string> = {}) =>
  send(`/status/${slug}/badges/${probeId}/${file}`, { headers })

/** floor((counted − 2,880 s down) × 10000 / counted) over `days`. */
const uptime = (days: number) => Math.floor(((days * 86_400 - 2880) * 10_000) / (days * 86_400))

describe('probe badges of a public status page', () => {
  it('should give each uptime window as shields endpoint JSON and as SVG, under the page’s display name', async () => {
    const { probe, page } = await listedProbe()
    const expected = [
      ['uptime-24h', uptime(1), 'yellow'],
      ['uptime-7d', uptime(7), 'green'],
      ['uptime-30d', uptime(30), 'green'],
      ['uptime-90d', uptime(90), 'brightgreen'],
    ] as const
    for (const [kind, basisPoints, color] of expected) {
      const json = await badge(page.slug, probe.id, `${kind}.json`)
      expect(json.status, json.text).toBe(200)
      expect(json.headers.get('content-type')).toBe('application/json; charset=utf-8')
      const message = `${(basisPoints / 100).toFixed(2)}%`
      expect(json.body).toEqual({
        schemaVersion: 1,
        label: `Website uptime ${kind.slice(7)}`,
        message,
        color,
      })
      const svg = await badge(page.slug, probe.id, `${kind}.svg`)
      expect(svg.status).toBe(200)
      expect(svg.headers.get('content-type')).toBe('image/svg+xml; charset=utf-8')
      expect(svg.text).toContain(`<title>Website uptime ${kind.slice(7)}: ${message}</title>`)
    }
    // The same figure probes.availability gives for the day.
    const now = Date.now()
    const figures = await ok<{ uptimeRatio: number }>(
      'probes.availability',
      { id: probe.id, from: new Date(now - 24 * HOUR).toISOString(), to: new Date(now).toISOString() },
      admin,
    )
    expect(figures.uptimeRatio).toBe(uptime(1))
  })

  it('should show the status the page shows, cached like the page with an ETag and CORS', async () => {
    const { probe, page } = await listedProbe()
    const first = await badge(page.slug, probe.id, 'status.json')
    expect(first.body).toEqual({ schemaVersion: 1, label: 'Website', message: 'up', color: 'brightgreen' })
    expect(first.headers.get('cache-control')).toBe('public, max-age=10')
    expect(first.headers.get('access-control-allow-origin')).toBe('*')
    const etag = first.headers.get('etag') ?? ''
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/)
    const again = await badge(page.slug, probe.id, 'status.json', { 'if-none-match': etag })
    expect(again.status).toBe(304)
    expect(again.text).toBe('')
    const svg = await badge(page.slug, probe.id, 'status.svg')
    expect(svg.text).toContain('<title>Website: up</title>')
    expect(svg.text).toContain('fill="#4c1"')
    // Nothing of the probe but its display name: not its own name, nor its target.
    expect(first.text).not.toContain(probe.name)
    expect(svg.text).not.toContain(probe.target)
  })

  it('should give the mean response time of the last 24 hours’ checks, and "no data" without any', async () => {
    const { probe, page } = await listedProbe()
    expect((await badge(page.slug, probe.id, 'response.json')).body).toMatchObject({
      message: 'no data',
      color: 'lightgrey',
    })
    const { probe: timed, page: timedPage } = await listedProbe()
    const hour = Math.floor(Date.now() / HOUR) * HOUR
    const insert = workerEnv.DB.prepare(
      `insert into probe_rollups (probe_id, granularity, bucket_start, up, down, degraded, latency_sum_ms,
         latency_count, latency_max_ms) values (?1, 'hourly', ?2, ?3, 0, 0, ?4, ?3, 500)`,
    )
    await workerEnv.DB.batch([
      insert.bind(timed.id, hour, 10, 1000),
      insert.bind(timed.id, hour - HOUR, 30, 9000),
      // Older than a day: not counted.
      insert.bind(timed.id, hour - 30 * HOUR, 10, 100_000),
    ])
    expect((await badge(timedPage.slug, timed.id, 'response.json')).body).toEqual({
      schemaVersion: 1,
      label: 'Website response',
      message: '250 ms',
      color: 'blue',
    })
  })

  it('should give a cert probe’s days left as of its last check, and no certificate badge to other probes', async () => {
    const { probe, page } = await listedProbe({ type: 'cert', target: 'shop.example.com' })
    const lastResult = (detail: string, at: number) =>
      workerEnv.DB.prepare('update probes set last_result = ? where id = ?')
        .bind(
          JSON.stringify({ at: new Date(at).toISOString(), outcome: 'up', latencyMs: 40, detail }),
          probe.id,
        )
        .run()
    const cert = (file = 'cert-expiry.json') => badge(page.slug, probe.id, file)
    expect((await cert()).body).toMatchObject({ message: 'unknown', color: 'lightgrey' })
    // Each answer is kept for the edge's 20 s: a new result shows on another page's badge at once.
    const pages = await Promise.all(
      [0, 1, 2].map(() =>
        createStatusPage(admin, {
          public: true,
          groups: [{ name: 'Web', probes: [{ probeId: probe.id, displayName: 'Shop' }] }],
        }),
      ),
    )
    const [a, b, c] = pages.map((p) => p.slug)
    await lastResult('certificate valid until 2099-01-01 (40 days left)', Date.now() - 2.5 * 86_400_000)
    expect((await badge(a ?? '', probe.id, 'cert-expiry.json')).body).toEqual({
      schemaVersion: 1,
      label: 'Shop certificate',
      message: '38 days',
      color: 'brightgreen',
    })
    await lastResult('certificate expires in 3 days (warn at 14)', Date.now())
    expect((await badge(b ?? '', probe.id, 'cert-expiry.json')).body).toMatchObject({
      message: '3 days',
      color: 'orange',
    })
    await lastResult('certificate expired 2 days ago (on 2026-01-01)', Date.now())
    const expired = await badge(c ?? '', probe.id, 'cert-expiry.svg')
    expect(expired.text).toContain('<title>Shop certificate: expired</title>')
    const { probe: http, page: httpPage } = await listedProbe()
    expect((await badge(httpPage.slug, http.id, 'cert-expiry.json')).status).toBe(404)
  })

  it('should answer 404 for a probe the page does not list, a private page, an archived probe and any other spelling', async () => {
    const { probe, page } = await listedProbe()
    const { probe: elsewhere, page: elsewherePage } = await listedProbe()
    const unlisted = await quietProbe(admin)
    const hidden = await createStatusPage(admin, {
      groups: [{ name: 'Web', probes: [{ probeId: probe.id, displayName: 'Website' }] }],
    })
    const missing = [
      [page.slug, elsewhere.id, 'status.json'],
      [page.slug, unlisted.id, 'status.svg'],
      [hidden.slug, probe.id, 'uptime-30d.json'],
      [page.slug, probe.id, 'uptime-1y.json'],
      [page.slug, probe.id, 'status.png'],
      [page.slug, probe.id.toUpperCase(), 'status.json'],
      [page.slug.toUpperCase(), probe.id, 'status.json'],
      ['no-such-page', probe.id, 'status.json'],
    ]
    for (const [slug, id, file] of missing) {
      const res = await badge(slug ?? '', id ?? '', file ?? '')
      expect(res.status, `${slug}/${id}/${file}`).toBe(404)
      expect(res.headers.get('content-type')).toBe('application/problem+json')
    }
    const escaped = await send(`/status/${page.slug}/badges/${probe.id}/status%2Ejson`)
    expect(escaped.status).toBe(404)
    await ok('probes.archive', { id: elsewhere.id }, admin)
    expect((await badge(elsewherePage.slug, elsewhere.id, 'status.json')).status).toBe(404)
    expect((await badge(page.slug, probe.id, 'status.json')).status).toBe(200)
  })
})
