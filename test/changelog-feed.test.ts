import { SELF } from 'cloudflare:test'
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { FEED_ISOLATE_TTL_MS } from '../src/changelog/feed-cache'
import { createClient } from '../src/client'
import { GET_PROCEDURES } from '../src/client/get-procedures'
import { procedures } from '../src/rpc/registry'
import { isGetOnly } from '../src/rpc/transport'
import { captureJobs, createRelease, publishRelease, workerEnv } from './helpers/changelog'
import { type Caller, ORIGIN, ok, send } from './helpers/http'
import { adminSession } from './helpers/principals'

interface FeedRelease {
  version: string
  title: string
  date: string
  severity: string
  summary: string | null
  items: { category: string; text: string }[]
  i18n?: Record<
    string,
    { title: string; summary: string | null; items: { text: string }[]; machine: boolean }
  >
}
interface Feed {
  imageTag: string
  currentVersion: string | null
  releases: FeedRelease[]
}

const FEED = '/api/v1/meta/changelog'
const VERSION = '/api/v1/meta/version'
let admin: Caller

async function feed() {
  const res = await send(FEED)
  expect(res.status, res.text).toBe(200)
  return { ...res, feed: res.body as Feed }
}

function withImageTag<T>(tag: string, run: () => Promise<T>): Promise<T> {
  const previous = workerEnv.IMAGE_TAG
  workerEnv.IMAGE_TAG = tag
  return run().finally(() => {
    workerEnv.IMAGE_TAG = previous
  })
}

beforeAll(async () => {
  admin = await adminSession()
  captureJobs()
})

afterEach(() => {
  workerEnv.IMAGE_TAG = 'local'
})

// D1 is shared by the tests of this file, so they build on each other in order.
describe('GET /api/v1/meta/changelog', () => {
  it('should answer an empty feed with currentVersion null while only drafts exist', async () => {
    await createRelease(admin, '9.9.9', { summary: 'A draft nobody may see.' })
    const { feed: doc } = await feed()
    expect(doc).toEqual({ imageTag: 'local', currentVersion: null, releases: [] })
  })

  it('should order releases newest date first and, on the same date, by semver and never as text', async () => {
    await publishRelease(admin, '0.9.0', '2026-01-10')
    await publishRelease(admin, '0.10.0', '2026-01-10')
    await publishRelease(admin, '0.9.1', '2026-01-05')
    await publishRelease(admin, '0.2.0', '2026-02-01')
    await publishRelease(admin, '0.10.0-rc.1', '2026-01-10')
    const { feed: doc } = await feed()
    expect(doc.releases.map((r) => r.version)).toEqual(['0.2.0', '0.10.0', '0.10.0-rc.1', '0.9.0', '0.9.1'])
  })

  it('should show exactly the public fields and never a draft or an internal field', async () => {
    const secretDraft = await createRelease(admin, '7.0.0', { phase: 'internal-phase-x' })
    const shown = await publishRelease(admin, '1.0.0', '2026-03-01', {
      severity: 'major',
      summary: 'First stable release.',
      phase: 'phase-two-rollout',
      items: [
        { category: 'new', text: 'Custom hostnames.' },
        { category: 'fixed', text: 'Login on Safari.' },
      ],
    })
    const { feed: doc, text } = await feed()
    expect(Object.keys(doc).sort()).toEqual(['currentVersion', 'imageTag', 'releases'])
    expect(doc.releases.map((r) => r.version)).not.toContain('7.0.0')
    expect(doc.releases.map((r) => r.version)).not.toContain('9.9.9')
    for (const release of doc.releases) {
      expect(Object.keys(release).sort()).toEqual([
        'date',
        'items',
        'severity',
        'summary',
        'title',
        'version',
      ])
      expect(release.date).toMatch(/^\d{4}-\d{2}-\d{2}$/)
      for (const item of release.items) expect(Object.keys(item).sort()).toEqual(['category', 'text'])
    }
    expect(doc.releases[0]).toEqual({
      version: '1.0.0',
      title: 'Release 1.0.0',
      date: '2026-03-01',
      severity: 'major',
      summary: 'First stable release.',
      items: [
        { category: 'new', text: 'Custom hostnames.' },
        { category: 'fixed', text: 'Login on Safari.' },
      ],
    })
    for (const internal of [
      shown.id,
      secretDraft.id,
      'phase-two-rollout',
      'internal-phase-x',
      String(shown.createdBy),
    ]) {
      expect(text).not.toContain(internal)
    }
    expect(text).not.toMatch(/createdAt|updatedAt|publishedAt|source|phase|createdBy|"id"/)
  })

  it('should give a release published without a date the UTC date of its publication instant', async () => {
    const release = await publishRelease(admin, '1.0.1')
    expect(release.publishedAt).toEqual(expect.any(String))
    expect(release.date).toBe(String(release.publishedAt).slice(0, 10))
    const { feed: doc } = await feed()
    expect(doc.releases.find((r) => r.version === '1.0.1')?.date).toBe(release.date)
  })

  describe('currentVersion', () => {
    it('should be the newest published release when the running tag names no release', async () => {
      const { feed: doc } = await feed()
      expect(doc.imageTag).toBe('local')
      expect(doc.currentVersion).toBe(doc.releases[0]?.version)
      expect(doc.currentVersion).toBe('1.0.1')
    })

    it('should be the release whose version equals the running tag, even when it is not the newest', async () => {
      await withImageTag('0.9.0', async () => {
        const { feed: doc } = await feed()
        expect(doc.imageTag).toBe('0.9.0')
        expect(doc.currentVersion).toBe('0.9.0')
      })
    })

    it('should match a deployed tag with build metadata (1.4.0+<commit>) to its release, and version says the tag', async () => {
      await withImageTag('0.9.0+abcdef123456', async () => {
        const { feed: doc } = await feed()
        expect(doc.imageTag).toBe('0.9.0+abcdef123456')
        expect(doc.currentVersion).toBe('0.9.0')
        expect((await send(VERSION)).body).toEqual({ version: '0.9.0+abcdef123456' })
      })
      await withImageTag('0.9.0+abcdef123456.dirty', async () => {
        expect((await feed()).feed.currentVersion).toBe('0.9.0')
      })
    })

    it('should not match a pre-release tag to its release: only build metadata is ignored', async () => {
      await withImageTag('0.9.0-rc.1+abcdef123456', async () => {
        expect((await feed()).feed.currentVersion).toBe('1.0.1')
      })
    })

    it('should not match a tag that only resembles a version (a leading v)', async () => {
      await withImageTag('v0.10.0', async () => {
        expect((await feed()).feed.currentVersion).toBe('1.0.1')
      })
    })

    it('should ignore a draft that matches the running tag', async () => {
      await withImageTag('7.0.0', async () => {
        expect((await feed()).feed.currentVersion).toBe('1.0.1')
      })
    })
  })

  it('should carry i18n only on translated releases, and drop it when the translation goes', async () => {
    const release = await publishRelease(admin, '1.1.0', '2026-03-02', {
      items: [{ category: 'improved', text: 'Faster deploys.' }],
    })
    await ok(
      'changelog.releases.setTranslation',
      {
        id: release.id,
        lang: 'de',
        title: 'Version 1.1',
        items: [{ text: 'Schnellere Deploys.' }],
        machine: true,
      },
      admin,
    )
    let doc = (await feed()).feed
    const translated = doc.releases.find((r) => r.version === '1.1.0')
    expect(translated?.i18n).toEqual({
      de: { title: 'Version 1.1', summary: null, items: [{ text: 'Schnellere Deploys.' }], machine: true },
    })
    for (const other of doc.releases.filter((r) => r.version !== '1.1.0'))
      expect(other).not.toHaveProperty('i18n')

    await ok('changelog.releases.removeTranslation', { id: release.id, lang: 'de' }, admin)
    doc = (await feed()).feed
    expect(doc.releases.find((r) => r.version === '1.1.0')).not.toHaveProperty('i18n')
  })

  it('should be public, CORS-open and cacheable with a strong ETag', async () => {
    const res = await send(FEED)
    expect(res.status, res.text).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^application\/json/)
    expect(res.headers.get('access-control-allow-origin')).toBe('*')
    expect(res.headers.get('cache-control')).toMatch(/^public, max-age=\d+, stale-while-revalidate=60$/)
    expect(res.headers.get('etag')).toMatch(/^"[0-9a-f]{32}"$/)
    const head = await send(FEED, { method: 'HEAD' })
    expect(head.status, head.text).toBe(200)
    expect(head.text).toBe('')
    expect(head.headers.get('etag')).toBe(res.headers.get('etag'))
  })

  it('should answer 304 with the caching headers to a matching If-None-Match, and 200 once the feed changed', async () => {
    const first = await send(FEED)
    const etag = first.headers.get('etag') ?? ''
    for (const header of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const again = await send(FEED, { headers: { 'if-none-match': header } })
      expect(again.status, `${header}: ${again.text}`).toBe(304)
      expect(again.text).toBe('')
      expect(again.headers.get('etag')).toBe(etag)
      expect(again.headers.get('access-control-allow-origin')).toBe('*')
      expect(again.headers.get('cache-control')).toMatch(/^public/)
    }
    const other = await send(FEED, { headers: { 'if-none-match': '"not-the-tag"' } })
    expect(other.status, other.text).toBe(200)

    await publishRelease(admin, '1.2.0', '2026-03-03')
    const changed = await send(FEED, { headers: { 'if-none-match': etag } })
    expect(changed.status, changed.text).toBe(200)
    expect(changed.headers.get('etag')).not.toBe(etag)
    expect((changed.body as Feed).releases.map((r) => r.version)).toContain('1.2.0')
  })

  it('should answer the CORS preflight of both paths', async () => {
    for (const path of [FEED, VERSION]) {
      const res = await send(path, {
        method: 'OPTIONS',
        headers: {
          origin: 'https://elsewhere.example',
          'access-control-request-method': 'GET',
          'access-control-request-headers': 'if-none-match',
        },
      })
      expect(res.status, res.text).toBe(204)
      expect(res.headers.get('access-control-allow-origin')).toBe('*')
      expect(res.headers.get('access-control-allow-methods')).toContain('GET')
      expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('if-none-match')
    }
  })

  it('should bound how late a change shows behind caches: max-age plus the isolate TTL is 60 s', async () => {
    const res = await send(FEED)
    const maxAge = Number(/max-age=(\d+)/.exec(res.headers.get('cache-control') ?? '')?.[1])
    expect(maxAge * 1000 + FEED_ISOLATE_TTL_MS).toBe(60_000)
  })

  it('should answer 404, never 405, to POST, PUT, PATCH and DELETE on both paths, CORS-open', async () => {
    for (const path of [FEED, VERSION]) {
      for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
        const res = await send(path, { method, headers: { 'content-type': 'application/json' }, body: '{}' })
        expect(res.status, `${method} ${path}: ${res.text}`).toBe(404)
        // Without it a browser sees an opaque CORS failure instead of the problem body.
        expect(res.headers.get('access-control-allow-origin'), `${method} ${path}`).toBe('*')
      }
    }
  })

  it('should answer 404 procedure_not_found to POST /api/rpc/meta.changelog and meta.version, as on the REST paths', async () => {
    for (const name of ['meta.changelog', 'meta.version']) {
      const res = await send(`/api/rpc/${name}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      })
      expect(res.status, `POST /api/rpc/${name}: ${res.text}`).toBe(404)
      expect((res.body as { code: string }).code).toBe('procedure_not_found')
    }
    const rest = await send(FEED, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    })
    expect((rest.body as { code: string }).code).toBe('procedure_not_found')
  })

  it('should know in the client every GET-only procedure of the registry', () => {
    const getOnly = [...procedures].filter(([, proc]) => isGetOnly(proc))
    expect(Object.fromEntries(GET_PROCEDURES)).toEqual(
      Object.fromEntries(getOnly.map(([name, proc]) => [name, `/api/v1${proc.rest?.path}`])),
    )
  })

  it('should keep CORS open on a server error', async () => {
    // A write clears this isolate's copy, so the next request rebuilds the feed from D1.
    await publishRelease(admin, '1.2.1', '2026-03-03')
    const batch = vi.spyOn(workerEnv.DB, 'batch').mockRejectedValueOnce(new Error('D1 is down'))
    try {
      const res = await send(FEED)
      expect(res.status, res.text).toBe(500)
      expect(res.headers.get('access-control-allow-origin')).toBe('*')
    } finally {
      batch.mockRestore()
    }
  })

  it('should ignore an unknown query parameter such as a cache buster', async () => {
    const plain = await send(FEED)
    for (const path of [`${FEED}?_=123`, `${VERSION}?_=123`]) {
      const res = await send(path)
      expect(res.status, `${path}: ${res.text}`).toBe(200)
      expect(res.headers.get('access-control-allow-origin')).toBe('*')
    }
    const busted = await send(`${FEED}?_=123`)
    expect(busted.text).toBe(plain.text)
    expect(busted.headers.get('etag')).toBe(plain.headers.get('etag'))
  })
})

describe('GET /api/v1/meta/version', () => {
  it('should answer exactly the running image tag, CORS-open', async () => {
    const res = await send(VERSION)
    expect(res.status, res.text).toBe(200)
    expect(res.body).toEqual({ version: 'local' })
    expect(res.headers.get('access-control-allow-origin')).toBe('*')
    await withImageTag('2026.11.3', async () => {
      expect((await send(VERSION)).body).toEqual({ version: '2026.11.3' })
    })
  })
})

describe('feed hot path', () => {
  it('should serve repeated requests from isolate memory: no D1 query and no JSON serialisation', async () => {
    await send(FEED)
    const etag = (await send(FEED)).headers.get('etag') ?? ''
    const prepare = vi.spyOn(workerEnv.DB, 'prepare')
    const batch = vi.spyOn(workerEnv.DB, 'batch')
    const stringify = vi.spyOn(JSON, 'stringify')
    try {
      for (let i = 0; i < 50; i++) {
        const res = await send(FEED, i % 2 ? { headers: { 'if-none-match': etag } } : {})
        expect(res.status, res.text).toBe(i % 2 ? 304 : 200)
      }
      expect(prepare).not.toHaveBeenCalled()
      expect(batch).not.toHaveBeenCalled()
      expect(stringify).not.toHaveBeenCalled()
    } finally {
      prepare.mockRestore()
      batch.mockRestore()
      stringify.mockRestore()
    }
  })

  it('should show a publish on this panel at the very next request', async () => {
    await send(FEED)
    const before = (await send(FEED)).headers.get('etag')
    await publishRelease(admin, '1.3.0', '2026-03-04')
    const batch = vi.spyOn(workerEnv.DB, 'batch')
    try {
      const after = await send(FEED)
      expect((after.body as Feed).releases.map((r) => r.version)).toContain('1.3.0')
      expect(after.headers.get('etag')).not.toBe(before)
      // Rebuilding reads the releases and their translations in a single D1 round trip.
      expect(batch).toHaveBeenCalledTimes(1)
    } finally {
      batch.mockRestore()
    }
  })

  it('should pick up a write made by another isolate within the isolate TTL', async () => {
    await send(FEED)
    // Another isolate's write: straight to D1, so this isolate's memory is not told.
    await workerEnv.DB.prepare(
      "UPDATE changelog_releases SET title = 'Renamed elsewhere' WHERE version = '1.3.0'",
    ).run()
    const titleOf130 = async () => (await feed()).feed.releases.find((r) => r.version === '1.3.0')?.title
    expect(await titleOf130()).toBe('Release 1.3.0')
    const realNow = Date.now()
    const clock = vi.spyOn(Date, 'now').mockReturnValue(realNow + FEED_ISOLATE_TTL_MS + 1)
    try {
      expect(await titleOf130()).toBe('Renamed elsewhere')
    } finally {
      clock.mockRestore()
    }
  })
})

describe('the feed in the registry', () => {
  it('should be in the OpenAPI document as GET only, and in the typed client', async () => {
    const doc = (await send('/api/v1/openapi.json')).body as {
      paths: Record<
        string,
        Record<
          string,
          {
            operationId: string
            responses: Record<string, { headers?: Record<string, { description: string }> }>
          }
        >
      >
      components: { schemas: Record<string, unknown> }
    }
    expect(Object.keys(doc.paths[FEED] ?? {})).toEqual(['get'])
    expect(doc.paths[FEED]?.get?.operationId).toBe('meta.changelog')
    const responses = doc.paths[FEED]?.get?.responses ?? {}
    expect(Object.keys(responses['200']?.headers ?? {})).toEqual(
      expect.arrayContaining(['ETag', 'Cache-Control', 'x-request-id', 'access-control-allow-origin']),
    )
    expect(responses['304']?.headers).toHaveProperty('ETag')
    expect(Object.keys(doc.paths[VERSION] ?? {})).toEqual(['get'])
    expect(doc.components.schemas).toHaveProperty('ChangelogFeed')
    expect(doc.components.schemas).toHaveProperty('ChangelogRelease')

    const client = createClient({ baseUrl: ORIGIN, fetch: (input, init) => SELF.fetch(input, init) })
    const fromClient = await client.meta.changelog()
    expect(fromClient.releases.map((r) => r.version)).toEqual(
      (await feed()).feed.releases.map((r) => r.version),
    )
    expect(await client.meta.version()).toEqual({ version: 'local' })
  })
})
