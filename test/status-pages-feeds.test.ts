import { SELF } from 'cloudflare:test'
import { beforeAll, describe, expect, it } from 'vitest'
import { readFeed } from './feeds/reader'
import { type Caller, ORIGIN, ok } from './helpers/http'
import { adminSession } from './helpers/principals'
import { createWindow, once } from './maintenance/fixture'
import { createStatusPage, quietProbe } from './status-pages/fixture'
import { insertIncident } from './status-pages/incident-rows'

// The feeds of a public status page, read by Debian's feedparser (python3-feedparser) as a feed reader would.
// Incidents are inserted as rows (test/status-pages/incident-rows.ts); everything else goes through the routes.

const HOUR_MS = 3_600_000
let admin: Caller

beforeAll(async () => {
  admin = await adminSession()
})

const get = (path: string, headers: Record<string, string> = {}) =>
  SELF.fetch(new Request(`${ORIGIN}${path}`, { headers }))

/** A public page with a resolved incident (three updates), an open one (one update) and a window ahead. */
async function pageWithHistory() {
  const probe = await quietProbe(admin, { name: 'api-probe' })
  const page = await createStatusPage(admin, {
    title: 'Acme <Status> & "friends"',
    public: true,
    groups: [{ name: 'Core', probes: [{ probeId: probe.id, displayName: 'API' }] }],
  })
  const now = Date.now()
  const resolved = await insertIncident(page.id, {
    title: 'Slow API & <b>errors</b>',
    updates: [
      { state: 'investigating', message: 'We see 5xx answers.\nMore soon.', at: new Date(now - 5 * HOUR_MS) },
      { state: 'identified', message: 'A bad deploy; rolling back.', at: new Date(now - 4 * HOUR_MS) },
      { state: 'resolved', message: 'All clear.', at: new Date(now - 3 * HOUR_MS) },
    ],
  })
  const open = await insertIncident(page.id, {
    title: 'Login delays',
    impact: 'minor',
    updates: [{ state: 'investigating', message: 'Some sign-ins take 30 s.', at: new Date(now - HOUR_MS) }],
  })
  const window = await createWindow(admin, {
    title: 'Database upgrade',
    schedule: once(now + 24 * HOUR_MS, 2),
    statusPageIds: [page.id],
  })
  return { page, resolved, open, window }
}

describe('GET /status/<slug>/feed.atom and feed.rss', () => {
  it('should be Atom 1.0 feedparser reads without a bozo flag: one entry per update and per window opening', async () => {
    const { page, resolved, open, window } = await pageWithHistory()
    const res = await get(`/status/${page.slug}/feed.atom`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('application/atom+xml; charset=utf-8')
    const feed = await readFeed(await res.text())
    expect(feed.bozo, feed.bozoException).toBe(0)
    expect(feed.version).toBe('atom10')
    expect(feed.feed.title).toBe('Acme <Status> & "friends"')
    expect(feed.feed.id).toMatch(new RegExp(`^tag:panel\\.test,\\d{4}-\\d{2}-\\d{2}:status-page/${page.id}$`))
    expect(feed.links).toEqual(
      expect.arrayContaining([
        { rel: 'alternate', href: `${ORIGIN}/status/${page.slug}` },
        { rel: 'self', href: `${ORIGIN}/status/${page.slug}/feed.atom` },
      ]),
    )
    expect(feed.entries.map((e) => e.title)).toEqual([
      'Maintenance: Database upgrade',
      'Login delays: Investigating',
      'Slow API & <b>errors</b>: Resolved',
      'Slow API & <b>errors</b>: Identified',
      'Slow API & <b>errors</b>: Investigating',
    ])
    const updateIds = [open.updates[0], ...resolved.updates.toReversed()].map((u) => u?.id)
    feed.entries.slice(1).forEach((entry, i) => {
      expect(entry.id).toMatch(/^tag:panel\.test,\d{4}-\d{2}-\d{2}:status-page\//)
      expect(entry.id).toContain(`/update/${updateIds[i]}`)
      expect(entry.link).toMatch(new RegExp(`^${ORIGIN}/status/${page.slug}#incident-`))
    })
    expect(feed.entries[0]?.id).toContain(`/maintenance/${window.id}/`)
    expect(feed.entries[4]?.summary).toContain('<p>We see 5xx answers.</p><p>More soon.</p>')
    expect(feed.entries[4]?.updated).toBe(resolved.updates[0]?.at.toISOString())
  })

  it('should be RSS 2.0 with guids that are not permalinks and RFC 822 dates, the same items as the Atom feed', async () => {
    const { page, resolved } = await pageWithHistory()
    const res = await get(`/status/${page.slug}/feed.rss`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('application/rss+xml; charset=utf-8')
    const xml = await res.text()
    expect(xml).toMatch(/<guid isPermaLink="false">tag:panel\.test,/)
    expect(xml).toMatch(/<pubDate>\w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} GMT<\/pubDate>/)
    const feed = await readFeed(xml)
    expect(feed.bozo, feed.bozoException).toBe(0)
    expect(feed.version).toBe('rss20')
    expect(feed.entries).toHaveLength(5)
    const atom = await readFeed(await (await get(`/status/${page.slug}/feed.atom`)).text())
    expect(feed.entries.map((e) => e.id)).toEqual(atom.entries.map((e) => e.id))
    expect(feed.entries[4]?.published).toBe(resolved.updates[0]?.at.toUTCString())
  })

  it('should keep an entry id the same across builds, carry an ETag that answers 304, and be open to any origin', async () => {
    const { page } = await pageWithHistory()
    const first = await get(`/status/${page.slug}/feed.atom`)
    const etag = first.headers.get('etag') ?? ''
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/)
    expect(first.headers.get('access-control-allow-origin')).toBe('*')
    expect(first.headers.get('cache-control')).toBe('public, max-age=10')
    const again = await get(`/status/${page.slug}/feed.atom`, { 'if-none-match': etag })
    expect(again.status).toBe(304)
    expect(again.headers.get('etag')).toBe(etag)
    expect(again.headers.get('access-control-allow-origin')).toBe('*')
  })

  it('should answer 404 for a private page, a missing one and a slug spelled other than as stored', async () => {
    const hidden = await createStatusPage(admin, { public: false })
    await insertIncident(hidden.id, {
      title: 'Secret outage',
      updates: [{ state: 'investigating', message: 'hush', at: new Date() }],
    })
    for (const path of [
      `/status/${hidden.slug}/feed.atom`,
      `/status/${hidden.slug}/feed.rss`,
      '/status/no-such-page/feed.atom',
      `/status/${hidden.slug.toUpperCase()}/feed.rss`,
    ]) {
      const res = await get(path)
      expect(res.status, path).toBe(404)
      expect(await res.text()).not.toContain('Secret outage')
    }
    await ok('statusPages.update', { id: hidden.id, public: true }, admin)
    const shown = await readFeed(await (await get(`/status/${hidden.slug}/feed.atom`)).text())
    expect(shown.entries.map((e) => e.title)).toEqual(['Secret outage: Investigating'])
  })

  it('should be a valid feed with no entries for a page without incidents or windows', async () => {
    const page = await createStatusPage(admin, { public: true, description: 'Nothing to see' })
    for (const format of ['atom', 'rss']) {
      const feed = await readFeed(await (await get(`/status/${page.slug}/feed.${format}`)).text())
      expect(feed.bozo, feed.bozoException).toBe(0)
      expect(feed.entries).toEqual([])
      expect(feed.feed.subtitle).toBe('Nothing to see')
    }
  })
})
