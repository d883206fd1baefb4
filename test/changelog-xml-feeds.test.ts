import { SELF } from 'cloudflare:test'
import { beforeAll, describe, expect, it } from 'vitest'
import { readFeed } from './feeds/reader'
import { captureJobs, createRelease, publishRelease } from './helpers/changelog'
import { type Caller, ORIGIN, send } from './helpers/http'
import { adminSession } from './helpers/principals'

// The changelog as Atom and RSS, read by Debian's feedparser; the same releases, cache and CORS as the JSON feed.

let admin: Caller

beforeAll(async () => {
  admin = await adminSession()
  captureJobs()
})

const get = (path: string, headers: Record<string, string> = {}) =>
  SELF.fetch(new Request(`${ORIGIN}${path}`, { headers }))

// D1 is shared by the tests of this file, so they build on each other in order.
describe('GET /api/v1/meta/changelog.atom and changelog.rss', () => {
  it('should be valid empty feeds while only drafts exist', async () => {
    await createRelease(admin, '9.9.9', { summary: 'A draft nobody may see.' })
    for (const format of ['atom', 'rss']) {
      const xml = await (await get(`/api/v1/meta/changelog.${format}`)).text()
      const feed = await readFeed(xml)
      expect(feed.bozo, feed.bozoException).toBe(0)
      expect(feed.entries).toEqual([])
      expect(xml).not.toContain('9.9.9')
    }
  })

  it('should carry one entry per published release in feed order, with stable tag: ids and escaped text', async () => {
    await publishRelease(admin, '1.0.0', '2026-03-01', {
      summary: 'First stable release & more (5 > 4).',
      items: [
        { category: 'new', text: 'Custom hostnames.' },
        { category: 'fixed', text: 'Login on "Safari".' },
      ],
    })
    await publishRelease(admin, '1.1.0', '2026-04-02')
    const res = await get('/api/v1/meta/changelog.atom')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('application/atom+xml; charset=utf-8')
    const atom = await readFeed(await res.text())
    expect(atom.bozo, atom.bozoException).toBe(0)
    expect(atom.version).toBe('atom10')
    expect(atom.feed.id).toBe('tag:panel.test,2025-01-01:changelog')
    expect(atom.entries.map((e) => [e.id, e.title, e.updated])).toEqual([
      ['tag:panel.test,2025-01-01:changelog/1.1.0', '1.1.0: Release 1.1.0', '2026-04-02T00:00:00.000Z'],
      ['tag:panel.test,2025-01-01:changelog/1.0.0', '1.0.0: Release 1.0.0', '2026-03-01T00:00:00.000Z'],
    ])
    expect(atom.entries[1]?.summary).toBe(
      '<p>First stable release &amp; more (5 &gt; 4).</p><p>New: Custom hostnames.</p><p>Fixed: Login on &quot;Safari&quot;.</p>',
    )
    const json = (await send('/api/v1/meta/changelog')).body as { releases: { version: string }[] }
    expect(atom.entries.map((e) => e.id.split('/').at(-1))).toEqual(json.releases.map((r) => r.version))

    const rss = await get('/api/v1/meta/changelog.rss')
    expect(rss.headers.get('content-type')).toBe('application/rss+xml; charset=utf-8')
    const read = await readFeed(await rss.text())
    expect(read.bozo, read.bozoException).toBe(0)
    expect(read.version).toBe('rss20')
    expect(read.entries.map((e) => [e.id, e.published])).toEqual([
      ['tag:panel.test,2025-01-01:changelog/1.1.0', 'Thu, 02 Apr 2026 00:00:00 GMT'],
      ['tag:panel.test,2025-01-01:changelog/1.0.0', 'Sun, 01 Mar 2026 00:00:00 GMT'],
    ])
  })

  it('should answer 304 to its ETag, with the JSON feed’s Cache-Control and CORS, and a new ETag once a release is published', async () => {
    const jsonFeed = await get('/api/v1/meta/changelog')
    for (const format of ['atom', 'rss']) {
      const path = `/api/v1/meta/changelog.${format}`
      const first = await get(path)
      const etag = first.headers.get('etag') ?? ''
      expect(etag).toMatch(/^"[0-9a-f]{32}"$/)
      expect(first.headers.get('cache-control')).toBe(jsonFeed.headers.get('cache-control'))
      expect(first.headers.get('access-control-allow-origin')).toBe('*')
      expect(first.headers.get('access-control-expose-headers')).toBe('ETag')
      const again = await get(path, { 'if-none-match': `W/${etag}` })
      expect(again.status).toBe(304)
      expect(again.headers.get('access-control-allow-origin')).toBe('*')
      const preflight = await SELF.fetch(
        new Request(`${ORIGIN}${path}`, {
          method: 'OPTIONS',
          headers: { origin: 'https://elsewhere.example', 'access-control-request-method': 'GET' },
        }),
      )
      expect(preflight.status).toBe(204)
      expect(preflight.headers.get('access-control-allow-origin')).toBe('*')
    }
    const before = (await get('/api/v1/meta/changelog.atom')).headers.get('etag') ?? ''
    await publishRelease(admin, '1.2.0', '2026-05-03')
    const after = await get('/api/v1/meta/changelog.atom', { 'if-none-match': before })
    expect(after.status).toBe(200)
    expect((await readFeed(await after.text())).entries[0]?.title).toBe('1.2.0: Release 1.2.0')
  })
})
