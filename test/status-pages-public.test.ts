import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { CLIENT_SECONDS, EDGE_SECONDS } from '../src/status-pages/freshness'
import { PublicStatusSchema } from '../src/status-pages/public-openapi'
import { type Caller, ORIGIN, ok, send } from './helpers/http'
import { adminSession } from './helpers/principals'
import { workerEnv } from './probes/catalogue-fixture'
import { createStatusPage, quietProbe, type StatusPage } from './status-pages/fixture'

const DAY_MS = 86_400_000

interface PublicStatus {
  title: string
  description: string | null
  state: string
  generatedAt: string
  groups: {
    name: string
    probes: {
      name: string
      state: string
      awaiting: string | null
      since: string | null
      uptime: number | null
      bars: { date: string; upRatio: number | null }[]
    }[]
  }[]
  events: { at: string; name: string; state: string; previousState: string | null }[]
}

let admin: Caller

beforeAll(async () => {
  admin = await adminSession()
})

async function setState(probeId: string, state: string, at: number): Promise<void> {
  await workerEnv.DB.prepare('update probes set state = ?, last_changed_at = ? where id = ?')
    .bind(state, at, probeId)
    .run()
}

async function seedRollup(
  probeId: string,
  day: number,
  up: number,
  down: number,
  degraded = 0,
): Promise<void> {
  await workerEnv.DB.prepare(
    `insert into probe_rollups (probe_id, granularity, bucket_start, up, down, degraded, latency_sum_ms, latency_count)
     values (?, 'daily', ?, ?, ?, ?, 0, 0)`,
  )
    .bind(probeId, day, up, down, degraded)
    .run()
}

async function seedEvent(probeId: string, at: number, state: string, previous: string): Promise<void> {
  await workerEnv.DB.prepare(
    `insert into probe_results (probe_id, kind, at, state, previous_state, detail) values (?, 'event', ?, ?, ?, ?)`,
  )
    .bind(probeId, at, state, previous, 'connect ECONNREFUSED 10.0.0.7:8443')
    .run()
}

const today = () => Math.floor(Date.now() / DAY_MS) * DAY_MS

/** A public page over two probes with secrets in their targets and configs, states, rollups and events. */
async function seededPage() {
  const web = await quietProbe(admin, {
    name: 'internal-web-probe',
    target: 'https://status.probes-example.com/health?token=s3cret-target',
    config: { keyword: 'needle-in-config' },
  })
  const api = await quietProbe(admin, { name: 'internal-api-probe' })
  const page = await createStatusPage(admin, {
    title: 'Acme status',
    public: true,
    groups: [
      { name: 'Frontend', probes: [{ probeId: web.id, displayName: 'Website' }] },
      { name: 'Backend', probes: [{ probeId: api.id, displayName: 'API' }] },
    ],
  })
  const now = Date.now()
  await setState(web.id, 'up', now - 3_600_000)
  await setState(api.id, 'degraded', now - 60_000)
  await seedRollup(web.id, today(), 99, 1)
  await seedRollup(web.id, today() - DAY_MS, 100, 0)
  await seedRollup(web.id, today() - 89 * DAY_MS, 50, 50)
  await seedRollup(web.id, today() - 90 * DAY_MS, 0, 10)
  await seedRollup(api.id, today() - 2 * DAY_MS, 90, 5, 5)
  for (let i = 0; i < 25; i++)
    await seedEvent(i % 2 ? web.id : api.id, now - (25 - i) * 60_000, i % 3 ? 'up' : 'down', 'up')
  return { page, web, api }
}

describe('the public status JSON', () => {
  it('should answer the overall state, each probe, 90 daily bars from the rollups and the last 20 changes', async () => {
    const { page } = await seededPage()
    const res = await send(`/api/v1/status/${page.slug}`)
    expect(res.status, res.text).toBe(200)
    expect(res.headers.get('access-control-allow-origin')).toBe('*')
    expect(res.headers.get('content-type')).toContain('application/json')
    const body = res.body as PublicStatus
    expect(PublicStatusSchema.strict().safeParse(body).success).toBe(true)
    expect(body).toMatchObject({ title: 'Acme status', description: null, state: 'degraded' })
    expect(
      body.groups.map((group) => [group.name, group.probes.map((probe) => [probe.name, probe.state])]),
    ).toEqual([
      ['Frontend', [['Website', 'up']]],
      ['Backend', [['API', 'degraded']]],
    ])
    const [website] = body.groups[0]?.probes ?? []
    const [apiProbe] = body.groups[1]?.probes ?? []
    expect(website?.bars).toHaveLength(90)
    expect(website?.bars.at(-1)).toEqual({
      date: new Date(today()).toISOString().slice(0, 10),
      upRatio: 9900,
    })
    expect(website?.bars.at(-2)?.upRatio).toBe(10_000)
    expect(website?.bars[0]).toEqual({
      date: new Date(today() - 89 * DAY_MS).toISOString().slice(0, 10),
      upRatio: 5000,
    })
    expect(website?.bars[1]?.upRatio).toBeNull()
    // 249 answered of 300 checks; the day before the window is not counted.
    expect(website?.uptime).toBe(8300)
    expect(apiProbe?.bars.at(-3)?.upRatio).toBe(9500)
    expect(apiProbe?.uptime).toBe(9500)

    expect(body.events).toHaveLength(20)
    const times = body.events.map((event) => Date.parse(event.at))
    expect(times).toEqual([...times].sort((a, b) => b - a))
    expect(new Set(body.events.map((event) => event.name))).toEqual(new Set(['Website', 'API']))
    // The newest seeded change: the API going down.
    expect(body.events[0]).toMatchObject({ name: 'API', state: 'down', previousState: 'up' })
  })

  it('should show no target, config, probe id, probe name, event detail or page id on any face', async () => {
    const { page, web, api } = await seededPage()
    const faces = await Promise.all(
      [`/api/v1/status/${page.slug}`, `/status/${page.slug}`, `/api/v1/status/${page.slug}/badge.svg`].map(
        (path) => send(path),
      ),
    )
    for (const face of faces) {
      expect(face.status).toBe(200)
      for (const secret of [
        web.id,
        api.id,
        page.id,
        'internal-web-probe',
        'internal-api-probe',
        's3cret-target',
        'status.probes-example.com',
        'needle-in-config',
        'ECONNREFUSED',
        '10.0.0.7',
      ])
        expect(face.text).not.toContain(secret)
    }
  })

  it('should answer 304 to a matching If-None-Match, with the ETag and CORS headers', async () => {
    const { page } = await seededPage()
    for (const path of [
      `/api/v1/status/${page.slug}`,
      `/api/v1/status/${page.slug}/badge.svg`,
      `/status/${page.slug}`,
    ]) {
      const first = await send(path)
      const etag = first.headers.get('etag') ?? ''
      expect(etag).toMatch(/^"[0-9a-f]{32}"$/)
      const again = await send(path, { headers: { 'if-none-match': etag } })
      expect(again.status, path).toBe(304)
      expect(again.text).toBe('')
      expect(again.headers.get('etag')).toBe(etag)
      if (!path.startsWith('/status/')) expect(again.headers.get('access-control-allow-origin')).toBe('*')
      expect((await send(path, { headers: { 'if-none-match': '"other"' } })).status).toBe(200)
    }
  })
})

describe('the OpenAPI document', () => {
  it('should describe the three public faces, unauthenticated', async () => {
    const doc = (await send('/api/v1/openapi.json')).body as {
      paths: Record<string, { get?: { security: unknown[]; responses: Record<string, unknown> } }>
    }
    for (const path of ['/status/{slug}', '/api/v1/status/{slug}', '/api/v1/status/{slug}/badge.svg']) {
      const op = doc.paths[path]?.get
      expect(op?.security, path).toEqual([])
      expect(Object.keys(op?.responses ?? {}).sort(), path).toEqual(['200', '304', '404', '500'])
    }
  })

  it('should declare each face’s 404 as the media type it answers: HTML for the page, problem+json for the rest', async () => {
    const doc = (await send('/api/v1/openapi.json')).body as {
      paths: Record<string, { get?: { responses: Record<string, { content?: Record<string, unknown> }> } }>
    }
    const faces: [string, string, string][] = [
      ['/status/{slug}', '/status/no-such-page', 'text/html'],
      ['/api/v1/status/{slug}', '/api/v1/status/no-such-page', 'application/problem+json'],
      [
        '/api/v1/status/{slug}/badge.svg',
        '/api/v1/status/no-such-page/badge.svg',
        'application/problem+json',
      ],
    ]
    for (const [documented, live, type] of faces) {
      expect(Object.keys(doc.paths[documented]?.get?.responses['404']?.content ?? {}), documented).toEqual([
        type,
      ])
      const answer = await send(live)
      expect(answer.status).toBe(404)
      expect(answer.headers.get('content-type'), live).toContain(type)
    }
  })
})

describe('one spelling per page', () => {
  it('should answer a slug spelled with percent-escapes or capitals 404 on every face, building nothing', async () => {
    const { page } = await seededPage()
    const { slug } = page
    const hex = (char: string) => char.charCodeAt(0).toString(16)
    const spellings = [
      `%${hex(slug[0] ?? '')}${slug.slice(1)}`,
      `${slug.slice(0, 2)}%${hex(slug[2] ?? '').toUpperCase()}${slug.slice(3)}`,
      slug.toUpperCase(),
    ]
    const faces = [
      (s: string) => `/status/${s}`,
      (s: string) => `/api/v1/status/${s}`,
      (s: string) => `/api/v1/status/${s}/badge.svg`,
    ]
    for (const face of faces) {
      const canonical = await send(face(slug))
      expect(canonical.status, face(slug)).toBe(200)
      const unknown = await send(face('no-such-page'))
      for (const spelling of spellings) {
        const answer = await send(face(spelling))
        expect(answer.status, face(spelling)).toBe(404)
        expect(answer.headers.get('etag')).toBeNull()
        expect(answer.headers.get('content-type')).toBe(unknown.headers.get('content-type'))
        expect(await caches.default.match(new Request(`${ORIGIN}${face(spelling)}`))).toBeUndefined()
      }
    }
  })
})

describe('the edge cache', () => {
  /** The edge copy once the answer's background write landed. */
  async function storedCopy(path: string): Promise<Response> {
    for (let i = 0; i < 100; i++) {
      const copy = await caches.default.match(new Request(`${ORIGIN}${path}`))
      if (copy) return copy
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    throw new Error(`no edge copy of ${path}`)
  }

  afterEach(() => {
    vi.useRealTimers()
  })

  it('should serve a state at most 30 seconds old: the edge copy for 20, browsers 10 more', async () => {
    expect(EDGE_SECONDS + CLIENT_SECONDS).toBeLessThanOrEqual(30)
    const { page, api } = await seededPage()
    const path = `/api/v1/status/${page.slug}`
    // Only Date is controlled: the route reads the clock, the cache and D1 keep their real timers.
    vi.useFakeTimers({ toFake: ['Date'] })
    const builtAt = Date.now()
    const first = await send(path)
    expect(first.headers.get('cache-control')).toBe(`public, max-age=${CLIENT_SECONDS}`)
    expect((first.body as PublicStatus).state).toBe('degraded')
    await storedCopy(path)

    vi.setSystemTime(builtAt + 1_000)
    await setState(api.id, 'down', Date.now())
    // Until the copy is EDGE_SECONDS old, the edge serves it.
    vi.setSystemTime(builtAt + EDGE_SECONDS * 1000)
    const cached = await send(path)
    expect((cached.body as PublicStatus).state).toBe('degraded')
    expect(cached.headers.get('etag')).toBe(first.headers.get('etag'))
    // One millisecond later the page is built again from D1.
    vi.setSystemTime(builtAt + EDGE_SECONDS * 1000 + 1)
    const fresh = await send(path)
    expect((fresh.body as PublicStatus).state).toBe('down')
    expect(fresh.headers.get('etag')).not.toBe(first.headers.get('etag'))
    expect(Date.parse((fresh.body as PublicStatus).generatedAt)).toBe(builtAt + EDGE_SECONDS * 1000 + 1)
    // The new copy starts its own EDGE_SECONDS: a change now shows from the copy built after it.
    await storedCopy(path)
    await setState(api.id, 'up', Date.now())
    vi.setSystemTime(builtAt + 2 * EDGE_SECONDS * 1000 + 1)
    expect(((await send(path)).body as PublicStatus).state).toBe('down')
    vi.setSystemTime(builtAt + 2 * EDGE_SECONDS * 1000 + 2)
    expect(((await send(path)).body as PublicStatus).state).toBe('up')
  })

  it('should cache no 404: a page made public shows at once', async () => {
    const page = await createStatusPage(admin)
    const path = `/api/v1/status/${page.slug}`
    expect((await send(path)).status).toBe(404)
    await ok<StatusPage>('statusPages.update', { id: page.id, public: true }, admin)
    const res = await send(path)
    expect(res.status).toBe(200)
    expect((res.body as PublicStatus).state).toBe('paused')
  })
})

describe('the public HTML page and the badge', () => {
  it('should render the page as plain HTML with one stylesheet and no script or inline style', async () => {
    const { page } = await seededPage()
    const res = await send(`/status/${page.slug}`)
    expect(res.headers.get('content-type')).toContain('text/html')
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'")
    expect(res.text).toContain('<link rel="stylesheet" href="/status.css">')
    expect(res.text).toContain('Some systems are degraded')
    expect(res.text).toContain('Website')
    expect(res.text.match(/class="bar /g)).toHaveLength(180)
    expect(res.text).not.toMatch(/<script|<style|style=|\son[a-z]+=/i)
  })

  it('should escape what users typed', async () => {
    const probe = await quietProbe(admin)
    const page = await createStatusPage(admin, {
      public: true,
      title: '<b>Acme</b> & "co"',
      description: '<script>alert(1)</script>',
      groups: [{ name: '<i>g</i>', probes: [{ probeId: probe.id, displayName: '<img src=x>' }] }],
    })
    const html = (await send(`/status/${page.slug}`)).text
    expect(html).not.toMatch(/<script>|<b>|<i>|<img/)
    expect(html).toContain('&lt;b&gt;Acme&lt;/b&gt; &amp; &quot;co&quot;')
    const badge = (await send(`/api/v1/status/${page.slug}/badge.svg`)).text
    expect(badge).not.toContain('<b>')
    expect(badge).toContain('&lt;b&gt;Acme&lt;/b&gt;')
  })

  it('should draw a shields-style badge of the title and the overall state in its colour', async () => {
    const { page } = await seededPage()
    const res = await send(`/api/v1/status/${page.slug}/badge.svg`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toContain('image/svg+xml')
    expect(res.headers.get('access-control-allow-origin')).toBe('*')
    expect(res.text).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/)
    expect(res.text).toContain('aria-label="Acme status: degraded"')
    expect(res.text).toContain('fill="#dfb317"')
    expect(res.text).not.toMatch(/<script|style=/)
  })
})

describe('probes not checked yet', () => {
  const enable = (probeId: string) =>
    workerEnv.DB.prepare('update probes set enabled = 1 where id = ?').bind(probeId).run()

  it('should read "waiting for its first check" (a heartbeat: "first ping"), not "paused", in the HTML and the badge', async () => {
    const http = await quietProbe(admin)
    const heartbeat = await quietProbe(admin, { type: 'heartbeat', target: 'nightly backup', config: {} })
    const stopped = await quietProbe(admin)
    await enable(http.id)
    await enable(heartbeat.id)
    const page = await createStatusPage(admin, {
      title: 'New page',
      public: true,
      groups: [
        {
          name: 'All',
          probes: [
            { probeId: http.id, displayName: 'Website' },
            { probeId: heartbeat.id, displayName: 'Nightly backup' },
            { probeId: stopped.id, displayName: 'Old site' },
          ],
        },
      ],
    })
    const json = (await send(`/api/v1/status/${page.slug}`)).body as PublicStatus
    expect(PublicStatusSchema.strict().safeParse(json).success).toBe(true)
    expect(json.state).toBe('paused')
    expect(json.groups[0]?.probes.map((probe) => [probe.name, probe.state, probe.awaiting])).toEqual([
      ['Website', 'paused', 'check'],
      ['Nightly backup', 'paused', 'ping'],
      ['Old site', 'paused', null],
    ])
    const html = (await send(`/status/${page.slug}`)).text
    expect(html).toContain('Waiting for the first checks')
    expect(html).not.toContain('Monitoring is paused')
    expect(html).toContain('<span class="state waiting">waiting for its first check</span>')
    expect(html).toContain('<span class="state waiting">waiting for its first ping</span>')
    expect(html).toContain('<span class="state paused">paused</span>')
    const badge = (await send(`/api/v1/status/${page.slug}/badge.svg`)).text
    expect(badge).toContain('aria-label="New page: waiting"')

    // A page of stopped probes alone is paused.
    const stoppedOnly = await createStatusPage(admin, {
      public: true,
      groups: [{ name: 'All', probes: [{ probeId: stopped.id, displayName: 'Old site' }] }],
    })
    expect((await send(`/status/${stoppedOnly.slug}`)).text).toContain('Monitoring is paused')
    expect((await send(`/api/v1/status/${stoppedOnly.slug}/badge.svg`)).text).toContain(': paused"')
  })
})
