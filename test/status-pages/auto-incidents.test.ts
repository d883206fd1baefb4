import { beforeAll, describe, expect, it } from 'vitest'
import type { ProbeMonitor } from '../../durable-objects/probe-monitor'
import { db } from '../../src/db/client'
import type { CheckOutcome, MonitorSnapshot } from '../../src/probes/monitor/api'
import { toSnapshot } from '../../src/probes/rows'
import { applyAutoIncidentChange } from '../../src/status-pages/incidents/auto'
import { type Caller, ok } from '../helpers/http'
import { adminSession } from '../helpers/principals'
import { createWindow, once } from '../maintenance/fixture'
import { createProbe, probeRecord, workerEnv } from '../probes/catalogue-fixture'
import { createStatusPage, type StatusPage } from './fixture'
import type { Incident } from './incident-fixture'

// The probe's monitor judges results stamped by the test's clock, so a window a day ahead is driven without
// waiting for it; the monitor applies each change to the pages' automatic incidents right after its D1 flush.
const MINUTE = 60_000
const HOUR = 60 * MINUTE
const T = Math.floor(Date.now() / HOUR) * HOUR + 24 * HOUR
const iso = (ms: number) => new Date(ms).toISOString()

let admin: Caller

beforeAll(async () => {
  admin = await adminSession()
})

interface Watched {
  id: string
  snapshot: MonitorSnapshot
  stub: DurableObjectStub<ProbeMonitor>
}

/** An http probe, down on its first failure, listed as `name` on a page with autoIncidents (and on one without). */
async function listedProbe(name = 'Checkout API') {
  const probe = await createProbe(admin, { config: { failureThreshold: 1 } })
  const row = await probeRecord(probe.id)
  if (!row) throw new Error('no probe row')
  const groups = [{ name: 'Shop', probes: [{ probeId: probe.id, displayName: name }] }]
  const page = await createStatusPage(admin, { autoIncidents: true, groups })
  const manual = await createStatusPage(admin, { groups })
  const watched: Watched = {
    id: probe.id,
    snapshot: toSnapshot(row),
    stub: workerEnv.PROBE_MONITOR.getByName(probe.id),
  }
  return { probe: watched, page, manual }
}

const apply = (probe: Watched, at: number, outcome: CheckOutcome) =>
  probe.stub.applyResult(probe.snapshot, {
    checkId: `${probe.id}:${at}`,
    at,
    outcome,
    latencyMs: 20,
    detail: outcome === 'down' ? 'HTTP 503' : 'HTTP 200',
  })

async function incidentsOf(page: StatusPage): Promise<Incident[]> {
  return (await ok<{ incidents: Incident[] }>('statusPages.incidents.list', { statusPageId: page.id }, admin))
    .incidents
}

describe('automatic incidents', () => {
  it('should open one major incident named after the listed probe when it goes down, and resolve it when it is back', async () => {
    const { probe, page, manual } = await listedProbe()
    await apply(probe, T, 'up')
    expect(await incidentsOf(page)).toEqual([])
    await apply(probe, T + MINUTE, 'down')
    await apply(probe, T + 2 * MINUTE, 'down')
    const [opened, ...others] = await incidentsOf(page)
    expect(others).toEqual([])
    expect(opened).toMatchObject({
      title: 'Checkout API is down',
      impact: 'major',
      state: 'investigating',
      probeIds: [probe.id],
      automatic: true,
      createdAt: iso(T + MINUTE),
      resolvedAt: null,
    })
    expect(opened?.updates).toEqual([
      expect.objectContaining({
        state: 'investigating',
        at: iso(T + MINUTE),
        message: expect.stringContaining('Checkout API'),
      }),
    ])

    await apply(probe, T + 5 * MINUTE, 'up')
    const [resolved] = await incidentsOf(page)
    expect(resolved).toMatchObject({ id: opened?.id, state: 'resolved', resolvedAt: iso(T + 5 * MINUTE) })
    expect(resolved?.updates.map((u) => [u.state, u.at])).toEqual([
      ['resolved', iso(T + 5 * MINUTE)],
      ['investigating', iso(T + MINUTE)],
    ])

    // The next episode is an incident of its own; the page without the rule never gets one.
    await apply(probe, T + 10 * MINUTE, 'down')
    expect((await incidentsOf(page)).map((i) => [i.state, i.createdAt])).toEqual([
      ['investigating', iso(T + 10 * MINUTE)],
      ['resolved', iso(T + MINUTE)],
    ])
    expect(await incidentsOf(manual)).toEqual([])
  })

  it('should open and resolve nothing twice when a change is applied again, or twice at once', async () => {
    const { probe, page } = await listedProbe('Search')
    const database = db(workerEnv.DB)
    const down = { state: 'down' as const, at: T + MINUTE, covered: false }
    await Promise.all([
      applyAutoIncidentChange(database, workerEnv, probe.id, down),
      applyAutoIncidentChange(database, workerEnv, probe.id, down),
    ])
    await applyAutoIncidentChange(database, workerEnv, probe.id, down)
    expect((await incidentsOf(page)).map((i) => i.state)).toEqual(['investigating'])

    const up = { state: 'up' as const, at: T + 3 * MINUTE, covered: false }
    await applyAutoIncidentChange(database, workerEnv, probe.id, up)
    await applyAutoIncidentChange(database, workerEnv, probe.id, up)
    // The down applied again after its incident was resolved opens no second one.
    await applyAutoIncidentChange(database, workerEnv, probe.id, down)
    const incidents = await incidentsOf(page)
    expect(incidents).toHaveLength(1)
    expect(incidents[0]?.updates.map((u) => u.state)).toEqual(['resolved', 'investigating'])
  })

  it('should open no incident while maintenance covers the probe, and open one for a down after the window', async () => {
    const { probe, page } = await listedProbe('Billing')
    await createWindow(admin, {
      title: 'Billing upgrade',
      schedule: once(T + 10 * MINUTE, 0.5),
      probeIds: [probe.id],
    })
    await apply(probe, T, 'up')
    await apply(probe, T + 15 * MINUTE, 'down')
    expect(await incidentsOf(page)).toEqual([])
    await apply(probe, T + 20 * MINUTE, 'up')
    await apply(probe, T + 45 * MINUTE, 'down')
    expect((await incidentsOf(page)).map((i) => [i.title, i.createdAt])).toEqual([
      ['Billing is down', iso(T + 45 * MINUTE)],
    ])
  })

  it('should follow an operator’s updates: resolve after them, and leave one they resolved alone', async () => {
    const { probe, page } = await listedProbe('Login')
    await apply(probe, T, 'up')
    await apply(probe, T + MINUTE, 'down')
    const [first] = await incidentsOf(page)
    await ok(
      'statusPages.incidents.update',
      { id: first?.id, state: 'identified', message: 'A bad deploy.' },
      admin,
    )
    await apply(probe, T + 2 * MINUTE, 'up')
    const [after] = await incidentsOf(page)
    expect(after?.updates.map((u) => u.state)).toEqual(['resolved', 'identified', 'investigating'])

    await apply(probe, T + 3 * MINUTE, 'down')
    const [second] = await incidentsOf(page)
    await ok(
      'statusPages.incidents.update',
      { id: second?.id, state: 'resolved', message: 'Rolled back.' },
      admin,
    )
    await apply(probe, T + 4 * MINUTE, 'up')
    const [left] = await incidentsOf(page)
    expect(left?.updates.map((u) => [u.state, u.message])).toEqual([
      ['resolved', 'Rolled back.'],
      ['investigating', expect.any(String)],
    ])
  })
})
