import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { EDGE_SECONDS } from '../../src/status-pages/freshness'
import { PublicStatusSchema } from '../../src/status-pages/public-openapi'
import { type Caller, ok, send } from '../helpers/http'
import { adminSession } from '../helpers/principals'
import { workerEnv } from '../probes/catalogue-fixture'
import { createStatusPage, quietProbe } from './fixture'
import { type Incident, openIncident } from './incident-fixture'

const DAY_MS = 86_400_000

interface PublicIncident {
  title: string
  impact: string
  state: string
  affects: string[]
  createdAt: string
  resolvedAt: string | null
  updates: { state: string; message: string; at: string }[]
}

let admin: Caller

beforeAll(async () => {
  admin = await adminSession()
})

afterEach(() => {
  vi.useRealTimers()
})

/** Moves an incident (and its updates) `days` into the past, as if it had happened then. */
async function backdate(id: string, days: number): Promise<void> {
  const shift = days * DAY_MS
  await workerEnv.DB.batch([
    workerEnv.DB.prepare(
      `update status_page_incidents set created_at = created_at - ?1, updated_at = updated_at - ?1,
        resolved_at = resolved_at - ?1 where id = ?2`,
    ).bind(shift, id),
    workerEnv.DB.prepare('update status_page_incident_updates set at = at - ?1 where incident_id = ?2').bind(
      shift,
      id,
    ),
  ])
}

async function publicPageWithHistory() {
  const probe = await quietProbe(admin, { name: 'internal-db-probe' })
  const page = await createStatusPage(admin, {
    public: true,
    groups: [{ name: 'Data', probes: [{ probeId: probe.id, displayName: 'Database' }] }],
  })
  const resolve = (incident: Incident, message: string) =>
    ok<Incident>('statusPages.incidents.update', { id: incident.id, state: 'resolved', message }, admin)
  const ancient = await openIncident(admin, { statusPageId: page.id, title: 'Ancient outage' })
  await resolve(ancient, 'Long ago.')
  await backdate(ancient.id, 91)
  const recent = await openIncident(admin, { statusPageId: page.id, title: 'Replica lag', impact: 'minor' })
  await resolve(recent, 'Caught up.')
  await backdate(recent.id, 30)
  const open = await openIncident(admin, {
    statusPageId: page.id,
    title: 'Database <unreachable>',
    impact: 'critical',
    probeIds: [probe.id],
    message: 'Connections time out.\nWe are on it.',
  })
  await ok(
    'statusPages.incidents.update',
    { id: open.id, state: 'identified', message: 'A full disk.' },
    admin,
  )
  return { page, probe }
}

describe('incidents on the public page', () => {
  it('should give the JSON the open incidents first, then the last 90 days’ resolved ones, each with every update', async () => {
    const { page, probe } = await publicPageWithHistory()
    const res = await send(`/api/v1/status/${page.slug}`)
    expect(res.status, res.text).toBe(200)
    expect(PublicStatusSchema.strict().safeParse(res.body).success).toBe(true)
    const incidents = (res.body as { incidents: PublicIncident[] }).incidents
    expect(incidents.map((i) => [i.title, i.state, i.impact])).toEqual([
      ['Database <unreachable>', 'identified', 'critical'],
      ['Replica lag', 'resolved', 'minor'],
    ])
    expect(incidents[0]?.affects).toEqual(['Database'])
    expect(incidents[0]?.updates.map((u) => [u.state, u.message])).toEqual([
      ['identified', 'A full disk.'],
      ['investigating', 'Connections time out.\nWe are on it.'],
    ])
    expect(incidents[1]?.resolvedAt).not.toBeNull()
    // Display names only: never a probe's id or own name.
    expect(res.text).not.toContain(probe.id)
    expect(res.text).not.toContain('internal-db-probe')
  })

  it('should show them on the HTML page, escaped, open ones under the headline and the rest as history', async () => {
    const { page } = await publicPageWithHistory()
    const res = await send(`/status/${page.slug}`)
    expect(res.status).toBe(200)
    const html = res.text
    expect(html).toContain('Database &lt;unreachable&gt;')
    expect(html).not.toContain('Database <unreachable>')
    expect(html).not.toContain('Ancient outage')
    const open = html.indexOf('class="incidents open"')
    const past = html.indexOf('class="incidents past"')
    expect(open).toBeGreaterThan(html.indexOf('class="overall'))
    expect(past).toBeGreaterThan(open)
    expect(html.indexOf('Replica lag')).toBeGreaterThan(past)
    expect(html).toContain('A full disk.')
    expect(html).toContain('Connections time out.\nWe are on it.')
    // Its probes are up, but an incident is open: the headline does not say all is well.
    expect(html).toContain('<p class="overall incident">An incident is open</p>')
  })

  it('should say there were no incidents on a page without any', async () => {
    const page = await createStatusPage(admin, { public: true })
    const json = await send(`/api/v1/status/${page.slug}`)
    expect((json.body as { incidents: unknown[] }).incidents).toEqual([])
    expect((await send(`/status/${page.slug}`)).text).toContain('No incidents in the last 90 days.')
  })

  it('should change the ETag with a new update once the cached copy is rebuilt, and keep it until then', async () => {
    const page = await createStatusPage(admin, { public: true })
    const incident = await openIncident(admin, { statusPageId: page.id, title: 'Queue backlog' })
    vi.useFakeTimers({ toFake: ['Date'] })
    const builtAt = Date.now()
    for (const path of [`/api/v1/status/${page.slug}`, `/status/${page.slug}`]) {
      vi.setSystemTime(builtAt)
      const first = await send(path)
      const etag = first.headers.get('etag') ?? ''
      await ok(
        'statusPages.incidents.update',
        { id: incident.id, state: 'monitoring', message: `Draining (${path}).` },
        admin,
      )
      expect((await send(path, { headers: { 'if-none-match': etag } })).status).toBe(304)
      vi.setSystemTime(builtAt + EDGE_SECONDS * 1000 + 1)
      const rebuilt = await send(path, { headers: { 'if-none-match': etag } })
      expect(rebuilt.status).toBe(200)
      expect(rebuilt.headers.get('etag')).not.toBe(etag)
      expect(rebuilt.text).toContain(`Draining (${path}).`)
    }
  })
})
