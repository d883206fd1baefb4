import { beforeAll, describe, expect, it } from 'vitest'
import { IncidentSchema } from '../../src/status-pages/incidents/schema'
import { type Caller, call, ok } from '../helpers/http'
import { adminSession, operatorSession, tokenFor } from '../helpers/principals'
import { workerEnv } from '../probes/catalogue-fixture'
import { createStatusPage, quietProbe, type StatusPage } from './fixture'
import { type Incident, openIncident } from './incident-fixture'

let admin: Caller

beforeAll(async () => {
  admin = await adminSession()
})

async function pageWithProbes(count = 2): Promise<{ page: StatusPage; probeIds: string[] }> {
  const probes = await Promise.all(Array.from({ length: count }, () => quietProbe(admin)))
  const page = await createStatusPage(admin, {
    groups: [{ name: 'All', probes: probes.map((p, i) => ({ probeId: p.id, displayName: `Service ${i}` })) }],
  })
  return { page, probeIds: probes.map((p) => p.id) }
}

async function storedCounts(statusPageId: string): Promise<{ incidents: number; updates: number }> {
  const row = await workerEnv.DB.prepare(
    `select (select count(*) from status_page_incidents where status_page_id = ?1) as incidents,
       (select count(*) from status_page_incident_updates u join status_page_incidents i on i.id = u.incident_id
         where i.status_page_id = ?1) as updates`,
  )
    .bind(statusPageId)
    .first<{ incidents: number; updates: number }>()
  return row ?? { incidents: 0, updates: 0 }
}

async function auditActions(targetId: string): Promise<string[]> {
  const page = await ok<{ entries: { action: string }[] }>('audit.list', { targetId }, admin)
  return page.entries.map((entry) => entry.action).reverse()
}

describe('statusPages.incidents', () => {
  it('should open an incident investigating, add timestamped updates, and resolve it, auditing each', async () => {
    const { page, probeIds } = await pageWithProbes()
    const created = await openIncident(admin, {
      statusPageId: page.id,
      title: '  Slow checkout  ',
      impact: 'minor',
      probeIds: [probeIds[1]],
      message: 'We are looking into slow checkouts.',
    })
    expect(IncidentSchema.strict().safeParse(created).success).toBe(true)
    expect(created).toMatchObject({
      statusPageId: page.id,
      title: 'Slow checkout',
      impact: 'minor',
      state: 'investigating',
      probeIds: [probeIds[1]],
      automatic: false,
      resolvedAt: null,
    })
    expect(created.updates).toEqual([
      {
        id: expect.any(String),
        state: 'investigating',
        message: 'We are looking into slow checkouts.',
        at: created.createdAt,
      },
    ])

    const identified = await ok<Incident>(
      'statusPages.incidents.update',
      { id: created.id, state: 'identified', message: 'A database index was missing.' },
      admin,
    )
    expect(identified.state).toBe('identified')
    expect(identified.updates.map((u) => u.state)).toEqual(['identified', 'investigating'])
    expect(Date.parse(identified.updates[0]?.at ?? '')).toBeGreaterThan(Date.parse(created.createdAt))
    expect(identified.updatedAt).toBe(identified.updates[0]?.at)

    // Over REST, as its neighbours: POST /api/v1/statusPages/incidents/update.
    const rest = await call<Incident>(
      'statusPages.incidents.update',
      { id: created.id, state: 'resolved', message: 'Checkouts are fast again.' },
      admin,
      'rest',
    )
    expect(rest.status, rest.text).toBe(200)
    const resolved = rest.body
    expect(resolved.state).toBe('resolved')
    expect(resolved.resolvedAt).toBe(resolved.updates[0]?.at)
    expect(resolved.updates.map((u) => u.state)).toEqual(['resolved', 'identified', 'investigating'])
    expect(await auditActions(created.id)).toEqual([
      'status-page.incident-create',
      'status-page.incident-update',
      'status-page.incident-update',
    ])
  })

  it('should keep the first resolvedAt on a second resolved update, and reopen on any other state', async () => {
    const { page } = await pageWithProbes(1)
    const incident = await openIncident(admin, { statusPageId: page.id })
    const resolved = await ok<Incident>(
      'statusPages.incidents.update',
      { id: incident.id, state: 'resolved', message: 'Fixed.' },
      admin,
    )
    const note = await ok<Incident>(
      'statusPages.incidents.update',
      { id: incident.id, state: 'resolved', message: 'Post-mortem: a bad deploy.' },
      admin,
    )
    expect(note.resolvedAt).toBe(resolved.resolvedAt)
    expect(note.updates).toHaveLength(3)
    const reopened = await ok<Incident>(
      'statusPages.incidents.update',
      { id: incident.id, state: 'monitoring', message: 'It came back; watching.' },
      admin,
    )
    expect(reopened).toMatchObject({ state: 'monitoring', resolvedAt: null })
    expect(reopened.updates.map((u) => u.state)).toEqual([
      'monitoring',
      'resolved',
      'resolved',
      'investigating',
    ])
  })

  it('should refuse a probe the page does not list with 422 naming it, and store nothing', async () => {
    const { page, probeIds } = await pageWithProbes()
    const elsewhere = await quietProbe(admin)
    const before = await storedCounts(page.id)
    for (const stranger of [elsewhere.id, 'no-such-probe']) {
      const res = await call<{ code: string; issues: { path: string; message: string }[] }>(
        'statusPages.incidents.create',
        {
          statusPageId: page.id,
          title: 'x',
          impact: 'major',
          probeIds: [probeIds[0], stranger],
          message: 'm',
        },
        admin,
      )
      expect(res.status, res.text).toBe(422)
      expect(res.body.code).toBe('invalid_reference')
      expect(res.body.issues).toEqual([
        { path: 'probeIds.1', message: expect.stringContaining('not listed') },
      ])
    }
    expect(await storedCounts(page.id)).toEqual(before)
  })

  it('should refuse bad input with 400 naming the field, and an unknown page or incident with 404', async () => {
    const { page } = await pageWithProbes(1)
    const incident = await openIncident(admin, { statusPageId: page.id })
    const before = await storedCounts(page.id)
    const cases: [string, Record<string, unknown>, string][] = [
      [
        'statusPages.incidents.create',
        { statusPageId: page.id, title: 'x'.repeat(201), impact: 'minor', message: 'm' },
        'title',
      ],
      [
        'statusPages.incidents.create',
        { statusPageId: page.id, title: '   ', impact: 'minor', message: 'm' },
        'title',
      ],
      [
        'statusPages.incidents.create',
        { statusPageId: page.id, title: 't', impact: 'huge', message: 'm' },
        'impact',
      ],
      [
        'statusPages.incidents.create',
        { statusPageId: page.id, title: 't', impact: 'none', message: 'm'.repeat(5001) },
        'message',
      ],
      ['statusPages.incidents.update', { id: incident.id, state: 'fixed', message: 'm' }, 'state'],
      ['statusPages.incidents.update', { id: incident.id, state: 'resolved', message: '' }, 'message'],
      ['statusPages.incidents.list', { statusPageId: page.id, limit: 0 }, 'limit'],
    ]
    for (const [name, input, field] of cases) {
      const res = await call<{ issues: { path: string }[] }>(name, input, admin)
      expect(res.status, `${name} ${field}: ${res.text}`).toBe(400)
      expect(res.body.issues.map((issue) => issue.path)).toContain(field)
    }
    const missing: [string, Record<string, unknown>][] = [
      [
        'statusPages.incidents.create',
        { statusPageId: 'no-such-page', title: 't', impact: 'none', message: 'm' },
      ],
      ['statusPages.incidents.update', { id: 'no-such-incident', state: 'resolved', message: 'm' }],
      ['statusPages.incidents.list', { statusPageId: 'no-such-page' }],
    ]
    for (const [name, input] of missing) expect((await call(name, input, admin)).status, name).toBe(404)
    expect(await storedCounts(page.id)).toEqual(before)
  })

  it('should list a page’s incidents newest first, keyset paged, with every update, and no other page’s', async () => {
    const { page } = await pageWithProbes(1)
    const other = await pageWithProbes(1)
    await openIncident(admin, { statusPageId: other.page.id, title: 'elsewhere' })
    const opened: Incident[] = []
    for (const title of ['first', 'second', 'third', 'fourth', 'fifth'])
      opened.push(await openIncident(admin, { statusPageId: page.id, title }))
    await ok('statusPages.incidents.update', { id: opened[0]?.id, state: 'resolved', message: 'done' }, admin)
    const seen: Incident[] = []
    let cursor: string | null | undefined
    do {
      const listed = await ok<{ incidents: Incident[]; nextCursor: string | null }>(
        'statusPages.incidents.list',
        { statusPageId: page.id, limit: 2, ...(cursor ? { cursor } : {}) },
        admin,
      )
      expect(listed.incidents.length).toBeLessThanOrEqual(2)
      seen.push(...listed.incidents)
      cursor = listed.nextCursor
    } while (cursor)
    expect(seen.map((i) => i.title)).toEqual(['fifth', 'fourth', 'third', 'second', 'first'])
    expect(seen.at(-1)?.updates.map((u) => u.state)).toEqual(['resolved', 'investigating'])
    const foreign = await call(
      'statusPages.incidents.list',
      { statusPageId: page.id, cursor: other.page.id },
      admin,
    )
    expect(foreign.status).toBe(400)
  })

  it('should refuse every incident call to a viewer with 403 and to anyone unauthenticated with 401', async () => {
    const { page } = await pageWithProbes(1)
    const incident = await openIncident(admin, { statusPageId: page.id })
    const viewer = await tokenFor(admin, ['probes:view'])
    const operator = await operatorSession(admin)
    const calls: [string, Record<string, unknown>][] = [
      ['statusPages.incidents.create', { statusPageId: page.id, title: 't', impact: 'none', message: 'm' }],
      ['statusPages.incidents.update', { id: incident.id, state: 'resolved', message: 'm' }],
      ['statusPages.incidents.list', { statusPageId: page.id }],
    ]
    for (const [name, input] of calls) {
      for (const caller of [viewer, operator])
        expect((await call(name, input, caller)).status, name).toBe(403)
      expect((await call(name, input, {})).status, name).toBe(401)
    }
    const manager = await tokenFor(admin, ['probes:manage', 'probes:view'])
    expect((await call('statusPages.incidents.list', { statusPageId: page.id }, manager)).status).toBe(200)
  })
})

describe('statusPages autoIncidents', () => {
  it('should be off by default, and be set by create and update', async () => {
    const page = await createStatusPage(admin)
    expect(page.autoIncidents).toBe(false)
    const on = await createStatusPage(admin, { autoIncidents: true })
    expect(on.autoIncidents).toBe(true)
    const updated = await ok<StatusPage>('statusPages.update', { id: page.id, autoIncidents: true }, admin)
    expect(updated.autoIncidents).toBe(true)
    expect((await ok<StatusPage>('statusPages.get', { id: page.id }, admin)).autoIncidents).toBe(true)
    const bad = await call<{ issues: { path: string }[] }>(
      'statusPages.update',
      { id: page.id, autoIncidents: 'yes' },
      admin,
    )
    expect(bad.status).toBe(400)
    expect(bad.body.issues.map((issue) => issue.path)).toEqual(['autoIncidents'])
  })
})
