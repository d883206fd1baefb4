import { beforeAll, describe, expect, it } from 'vitest'
import { type Caller, call, ok } from '../helpers/http'
import { adminSession, operatorSession, tokenFor } from '../helpers/principals'
import { workerEnv } from '../probes/catalogue-fixture'
import { createStatusPage, quietProbe } from '../status-pages/fixture'
import { createWindow, type MaintenanceWindow, once } from './fixture'

const HOUR_MS = 3_600_000
let admin: Caller

beforeAll(async () => {
  admin = await adminSession()
})

async function auditActions(targetId: string): Promise<string[]> {
  const page = await ok<{ entries: { action: string }[] }>('audit.list', { targetId }, admin)
  return page.entries.map((entry) => entry.action).reverse()
}

async function windowCount(): Promise<number> {
  const row = await workerEnv.DB.prepare(
    `select (select count(*) from maintenance_windows) + (select count(*) from maintenance_window_probes)
      + (select count(*) from maintenance_window_status_pages) as n`,
  ).first<{ n: number }>()
  return row?.n ?? 0
}

type Problem = { code: string; issues: { path: string; message: string }[] }

describe('maintenance windows: management', () => {
  it('should create, read, list, update and remove a window, auditing each change', async () => {
    const probe = await quietProbe(admin)
    const other = await quietProbe(admin)
    const page = await createStatusPage(admin)
    const start = Date.now() + HOUR_MS
    const created = await createWindow(admin, {
      schedule: {
        kind: 'once',
        startsAt: new Date(start).toISOString().replace('Z', '+00:00'),
        endsAt: new Date(start + 2 * HOUR_MS).toISOString(),
      },
      probeIds: [probe.id, probe.id],
      statusPageIds: [page.id],
    })
    expect(created).toMatchObject({
      title: 'Database upgrade',
      schedule: {
        kind: 'once',
        startsAt: new Date(start).toISOString(),
        endsAt: new Date(start + 2 * HOUR_MS).toISOString(),
      },
      probeIds: [probe.id],
      statusPageIds: [page.id],
      active: false,
      opening: {
        startsAt: new Date(start).toISOString(),
        endsAt: new Date(start + 2 * HOUR_MS).toISOString(),
      },
    })
    expect(await ok('maintenance.get', { id: created.id }, admin)).toEqual(created)
    const listed = await ok<{ windows: MaintenanceWindow[] }>('maintenance.list', { limit: 500 }, admin)
    expect(listed.windows.find((window) => window.id === created.id)).toEqual(created)

    const weekly = {
      kind: 'weekly',
      days: ['sun', 'sat', 'sun'],
      startTime: '02:30',
      durationMinutes: 90,
      timezone: 'Europe/Berlin',
    }
    const updated = await ok<MaintenanceWindow>(
      'maintenance.update',
      { id: created.id, title: 'Weekly patching', schedule: weekly, probeIds: [other.id] },
      admin,
    )
    expect(updated).toMatchObject({
      title: 'Weekly patching',
      schedule: { ...weekly, days: ['sat', 'sun'] },
      probeIds: [other.id],
      statusPageIds: [page.id],
    })
    expect(updated.opening).not.toBeNull()

    expect(await ok('maintenance.remove', { id: created.id }, admin)).toEqual({ removed: true })
    expect((await call('maintenance.get', { id: created.id }, admin)).status).toBe(404)
    expect((await call('maintenance.remove', { id: created.id }, admin)).status).toBe(404)
    expect((await call('maintenance.update', { id: created.id, title: 'x' }, admin)).status).toBe(404)
    expect(await auditActions(created.id)).toEqual([
      'maintenance.create',
      'maintenance.update',
      'maintenance.remove',
    ])
  })

  it('should let probes:view read and refuse every change with 403, and anyone unauthenticated with 401', async () => {
    const probe = await quietProbe(admin)
    const window = await createWindow(admin, { schedule: once(Date.now() + HOUR_MS), probeIds: [probe.id] })
    const viewToken = await tokenFor(admin, ['probes:view'])
    const operator = await operatorSession(admin)
    for (const reader of [viewToken, operator]) {
      expect((await call('maintenance.list', {}, reader)).status).toBe(200)
      expect((await call('maintenance.get', { id: window.id }, reader)).status).toBe(200)
      for (const [name, input] of [
        ['maintenance.create', { title: 'x', schedule: once(Date.now() + HOUR_MS), probeIds: [probe.id] }],
        ['maintenance.update', { id: window.id, title: 'changed' }],
        ['maintenance.remove', { id: window.id }],
      ] as const) {
        const res = await call(name, input, reader)
        expect(res.status, `${name}: ${res.text}`).toBe(403)
      }
    }
    expect((await call('maintenance.list', {}, {})).status).toBe(401)
    const manageToken = await tokenFor(admin, ['probes:manage', 'probes:view'])
    expect((await call('maintenance.update', { id: window.id, title: 'ok' }, manageToken)).status).toBe(200)
  })

  it('should refuse bad input with 400 problem+json naming the field, and write nothing', async () => {
    const probe = await quietProbe(admin)
    const archived = await quietProbe(admin)
    await ok('probes.archive', { id: archived.id }, admin)
    const page = await createStatusPage(admin)
    const removedPage = await createStatusPage(admin)
    await ok('statusPages.remove', { id: removedPage.id }, admin)
    const start = Date.now() + HOUR_MS
    const weekly = { kind: 'weekly', days: ['mon'], startTime: '03:00', durationMinutes: 60 }
    const cases: [Record<string, unknown>, string][] = [
      [
        {
          schedule: { ...once(start), endsAt: new Date(start - 60_000).toISOString() },
          probeIds: [probe.id],
        },
        'schedule.endsAt',
      ],
      [
        { schedule: { ...once(start), endsAt: new Date(start).toISOString() }, probeIds: [probe.id] },
        'schedule.endsAt',
      ],
      [{ schedule: once(Date.now() - 3 * HOUR_MS), probeIds: [probe.id] }, 'schedule.endsAt'],
      [{ schedule: { ...weekly, timezone: 'Mars/Olympus_Mons' }, probeIds: [probe.id] }, 'schedule.timezone'],
      [
        { schedule: { ...weekly, timezone: 'Europe/Berlin', startTime: '24:00' }, probeIds: [probe.id] },
        'schedule.startTime',
      ],
      [{ schedule: { ...weekly, timezone: 'UTC', days: [] }, probeIds: [probe.id] }, 'schedule.days'],
      [
        { schedule: { ...weekly, timezone: 'UTC', durationMinutes: 0 }, probeIds: [probe.id] },
        'schedule.durationMinutes',
      ],
      [{ schedule: once(start) }, 'probeIds'],
      [{ schedule: once(start), probeIds: [probe.id, 'no-such-probe'] }, 'probeIds.1'],
      [{ schedule: once(start), probeIds: [archived.id] }, 'probeIds.0'],
      [{ schedule: once(start), statusPageIds: [page.id, removedPage.id] }, 'statusPageIds.1'],
      [{ schedule: once(start), statusPageIds: ['no-such-page'] }, 'statusPageIds.0'],
    ]
    const before = await windowCount()
    for (const [input, path] of cases) {
      const res = await call<Problem>('maintenance.create', { title: 'Bad', ...input }, admin)
      expect(res.status, `${path}: ${res.text}`).toBe(400)
      expect(res.headers.get('content-type')).toContain('application/problem+json')
      expect(res.body.issues.map((issue) => issue.path)).toContain(path)
    }
    expect(await windowCount()).toBe(before)

    const window = await createWindow(admin, { schedule: once(start), probeIds: [probe.id] })
    const stored = await windowCount()
    // Without probeIds an update keeps the stored ones: that case is no bad update.
    for (const [input, path] of cases.filter(([, path]) => path !== 'probeIds')) {
      const res = await call<Problem>('maintenance.update', { id: window.id, ...input }, admin)
      expect(res.status, `${path}: ${res.text}`).toBe(400)
      expect(res.body.issues.map((issue) => issue.path)).toContain(path)
    }
    expect(await windowCount()).toBe(stored)
    expect(await ok('maintenance.get', { id: window.id }, admin)).toEqual(window)
    const missing = await call<Problem>('maintenance.update', { id: 'no-such-window', title: 'x' }, admin)
    expect(missing.status).toBe(404)
    expect(missing.headers.get('content-type')).toContain('application/problem+json')
  })

  it('should drop a removed status page from the windows naming it', async () => {
    const page = await createStatusPage(admin)
    const probe = await quietProbe(admin)
    const window = await createWindow(admin, {
      schedule: once(Date.now() + HOUR_MS),
      probeIds: [probe.id],
      statusPageIds: [page.id],
    })
    await ok('statusPages.remove', { id: page.id }, admin)
    expect((await ok<MaintenanceWindow>('maintenance.get', { id: window.id }, admin)).statusPageIds).toEqual(
      [],
    )
  })
})
