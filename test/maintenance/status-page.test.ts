import { beforeAll, describe, expect, it } from 'vitest'
import { PublicStatusSchema } from '../../src/status-pages/public-openapi'
import { type Caller, ok, send } from '../helpers/http'
import { adminSession } from '../helpers/principals'
import { workerEnv } from '../probes/catalogue-fixture'
import { createStatusPage, quietProbe } from '../status-pages/fixture'
import { createWindow, once } from './fixture'

const MINUTE = 60_000
const HOUR = 60 * MINUTE

interface PublicProbe {
  name: string
  state: string
  maintenance: { title: string; endsAt: string } | null
}

interface PublicStatus {
  state: string
  activeMaintenance: { title: string; endsAt: string }[]
  groups: { name: string; probes: PublicProbe[] }[]
}

let admin: Caller

beforeAll(async () => {
  admin = await adminSession()
})

async function setState(probeId: string, state: string): Promise<void> {
  await workerEnv.DB.prepare('update probes set state = ?, last_changed_at = ? where id = ?')
    .bind(state, Date.now() - HOUR, probeId)
    .run()
}

/** A public page over a web and an api probe, both up. */
async function page() {
  const web = await quietProbe(admin)
  const api = await quietProbe(admin)
  await setState(web.id, 'up')
  await setState(api.id, 'up')
  const created = await createStatusPage(admin, {
    title: 'Acme status',
    public: true,
    groups: [
      {
        name: 'Services',
        probes: [
          { probeId: web.id, displayName: 'Website' },
          { probeId: api.id, displayName: 'API' },
        ],
      },
    ],
  })
  return { page: created, web, api }
}

const read = async (slug: string) => {
  const res = await send(`/api/v1/status/${slug}`)
  expect(res.status, res.text).toBe(200)
  expect(PublicStatusSchema.strict().safeParse(res.body).success, res.text).toBe(true)
  return res.body as PublicStatus
}

describe('status pages during maintenance', () => {
  it('should show maintenance for a covered probe and the page in the JSON, the HTML and the badge', async () => {
    const { page: statusPage, web, api } = await page()
    const now = Date.now()
    const endsAt = new Date(now + 2 * HOUR).toISOString()
    await createWindow(admin, {
      title: 'Web server <upgrade>',
      schedule: { kind: 'once', startsAt: new Date(now - MINUTE).toISOString(), endsAt },
      probeIds: [web.id],
    })
    // The probe's own state stays its state; the page shows it under maintenance.
    await setState(web.id, 'down')
    const body = await read(statusPage.slug)
    expect(body.state).toBe('maintenance')
    expect(body.activeMaintenance).toEqual([{ title: 'Web server <upgrade>', endsAt }])
    expect(body.groups[0]?.probes).toEqual([
      expect.objectContaining({
        name: 'Website',
        state: 'down',
        maintenance: { title: 'Web server <upgrade>', endsAt },
      }),
      expect.objectContaining({ name: 'API', state: 'up', maintenance: null }),
    ])

    const html = await send(`/status/${statusPage.slug}`)
    expect(html.text).toContain('<p class="overall maintenance">Maintenance in progress</p>')
    expect(html.text).toContain(
      '<span class="state maintenance" title="Web server &lt;upgrade&gt;">maintenance</span>',
    )
    expect(html.text).toContain(`Web server &lt;upgrade&gt;, until <time datetime="${endsAt}">`)
    expect(html.text).not.toContain('<upgrade>')

    const badge = await send(`/api/v1/status/${statusPage.slug}/badge.svg`)
    expect(badge.text).toContain('aria-label="Acme status: maintenance"')
    expect(badge.text).toContain('#007ec6')

    // A probe no window covers still speaks for the page.
    await setState(api.id, 'down')
    const other = await createStatusPage(admin, {
      public: true,
      groups: [
        {
          name: 'Services',
          probes: [
            { probeId: web.id, displayName: 'Website' },
            { probeId: api.id, displayName: 'API' },
          ],
        },
      ],
    })
    expect((await read(other.slug)).state).toBe('down')
  })

  it('should cover every listed probe with a window naming the page, and nothing before it opens', async () => {
    const { page: statusPage, web } = await page()
    const later = await createWindow(admin, {
      schedule: once(Date.now() + HOUR),
      statusPageIds: [statusPage.id],
    })
    const before = await read(statusPage.slug)
    expect(before.state).toBe('up')
    expect(before.activeMaintenance).toEqual([])
    expect(before.groups[0]?.probes.map((probe) => probe.maintenance)).toEqual([null, null])

    const now = Date.now()
    const endsAt = new Date(now + HOUR).toISOString()
    await ok(
      'maintenance.update',
      {
        id: later.id,
        title: 'Rack move',
        schedule: { kind: 'once', startsAt: new Date(now - MINUTE).toISOString(), endsAt },
      },
      admin,
    )
    const fresh = await createStatusPage(admin, {
      public: true,
      groups: [{ name: 'Web', probes: [{ probeId: web.id, displayName: 'Website' }] }],
    })
    await ok('maintenance.update', { id: later.id, statusPageIds: [statusPage.id, fresh.id] }, admin)
    const body = await read(fresh.slug)
    expect(body.state).toBe('maintenance')
    expect(body.activeMaintenance).toEqual([{ title: 'Rack move', endsAt }])
    expect(body.groups[0]?.probes.map((probe) => probe.maintenance)).toEqual([{ title: 'Rack move', endsAt }])
    // The first page's JSON is still the edge copy read above (at most 30 s old); its HTML is built now.
    const html = await send(`/status/${statusPage.slug}`)
    expect(html.text.match(/class="state maintenance"/g)).toHaveLength(2)
  })
})
