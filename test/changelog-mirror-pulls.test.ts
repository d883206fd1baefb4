import { describe, expect, it, vi } from 'vitest'
import { MIRROR_BATCH_STATEMENTS, pullMirror, storePull } from '../src/changelog/mirror'
import { db } from '../src/db/client'
import { UPSTREAM_MAX_BYTES } from '../src/outside/changelog-upstream'
import { createRelease, type ReleaseRow, workerEnv } from './helpers/changelog'
import {
  admin,
  feedReleases,
  jobs,
  latestPullAudit,
  type MirrorState,
  type PullResult,
  pull,
  release,
  runCron,
  state,
  streamedBody,
  UPSTREAM,
  UPSTREAM_ORIGIN,
  upstream,
} from './helpers/changelog-mirror'
import { call, ok } from './helpers/http'
import { fakeOrigin, outboundRequests } from './helpers/outbound'

/** The ETag of the last good copy the panel pulled. */
let goodEtag = ''

// D1 is shared by the tests of this file, so they build on each other in order.
describe('changelog mirror', () => {
  it('should pull on the cron schedule, ignore unknown fields and serve the releases as its own', async () => {
    await createRelease(admin, '0.5.0', { title: 'A local draft' })
    expect(await ok<MirrorState>('changelog.mirror.set', { upstream: UPSTREAM }, admin)).toEqual({
      upstream: UPSTREAM,
      lastPulledAt: null,
      lastStatus: null,
      lastError: null,
    })
    const { etag } = upstream({
      imageTag: 'v9',
      currentVersion: '0.10.0',
      generator: 'a newer panel',
      releases: [
        release('0.10.0', '2026-02-01', {
          popularity: 42,
          items: [{ category: 'improved', text: 'Faster.', icon: 'bolt' }],
          i18n: {
            'pt-br': {
              title: 'Mais rápido',
              summary: null,
              items: [{ text: 'Mais rápido.', note: 'x' }],
              machine: true,
              by: 'bot',
            },
          },
        }),
        release('0.9.0', '2026-01-01'),
      ],
    })
    jobs.sent.length = 0
    // Warm this isolate's feed cache first: the pull must clear it.
    expect(await feedReleases()).toEqual([])
    await runCron()

    const mirror = await state()
    expect(mirror).toMatchObject({ upstream: UPSTREAM, lastStatus: 'ok', lastError: null })
    expect(mirror.lastPulledAt).toEqual(expect.any(String))
    // The stored copy shows in this panel's feed at once, in this panel's shape only.
    const releases = await feedReleases()
    expect(releases.map((r) => r.version)).toEqual(['0.10.0', '0.9.0'])
    expect(releases[0]).toEqual({
      version: '0.10.0',
      title: 'Upstream 0.10.0',
      date: '2026-02-01',
      severity: 'minor',
      summary: 'Summary of 0.10.0.',
      items: [{ category: 'improved', text: 'Faster.' }],
      i18n: {
        'pt-BR': { title: 'Mais rápido', summary: null, items: [{ text: 'Mais rápido.' }], machine: true },
      },
    })
    expect(Object.keys(releases[1] ?? {}).sort()).toEqual([
      'date',
      'items',
      'severity',
      'summary',
      'title',
      'version',
    ])

    const rows = await ok<ReleaseRow[]>('changelog.releases.list', { state: 'published' }, admin)
    expect(rows.map((r) => [r.version, r.source])).toEqual([
      ['0.10.0', 'mirror'],
      ['0.9.0', 'mirror'],
    ])
    // Mirrored releases are not published here, so they notify no webhook target of this panel.
    expect(jobs.sent).toHaveLength(0)
    goodEtag = etag
  })

  it('should send the last ETag and keep everything on a 304', async () => {
    const before = await feedReleases()
    // An upstream that would serve an empty feed, unless asked with the ETag of the copy the panel holds.
    const { hits } = upstream({ releases: [] }, goodEtag)
    const result = await pull()
    expect(hits).toHaveLength(1)
    expect(hits[0]?.headers.get('if-none-match')).toBe(goodEtag)
    expect(result).toMatchObject({
      lastStatus: 'unchanged',
      lastError: null,
      added: 0,
      updated: 0,
      removed: 0,
    })
    expect(await feedReleases()).toEqual(before)
  })

  it('should keep the last good copy and record the error when the upstream answers garbage', async () => {
    const before = await feedReleases()
    const malformed: [string, unknown, RegExp][] = [
      ['not JSON', '<html>oops</html>', /not JSON/],
      ['no releases', { imageTag: 'x' }, /releases/],
      ['a bad version', { releases: [release('1.0', '2026-03-01')] }, /releases\.0\.version/],
      ['a bad date', { releases: [release('1.0.0', '2026-02-30')] }, /releases\.0\.date/],
      [
        'markdown in a summary',
        { releases: [release('1.0.0', '2026-03-01', { summary: '**bold**' })] },
        /summary/,
      ],
      [
        'a duplicate version',
        { releases: [release('1.0.0', '2026-03-01'), release('1.0.0', '2026-03-02')] },
        /twice/,
      ],
      [
        'misaligned translation items',
        {
          releases: [
            release('1.0.0', '2026-03-01', {
              i18n: { de: { title: 'T', summary: null, items: [], machine: false } },
            }),
          ],
        },
        /align/,
      ],
    ]
    for (const [what, document, error] of malformed) {
      const { hits } = upstream(document)
      const result = await pull()
      expect(result.lastStatus, what).toBe('failed')
      expect(result.lastError, what).toMatch(error)
      expect(hits[0]?.headers.get('if-none-match'), what).toBe(goodEtag)
      expect(await feedReleases(), what).toEqual(before)
    }
    expect(await state()).toMatchObject({ lastStatus: 'failed' })

    fakeOrigin(UPSTREAM_ORIGIN, () => new Response('busy', { status: 503 }))
    const unavailable = await pull()
    expect(unavailable).toMatchObject({ lastStatus: 'failed', lastError: 'upstream answered 503' })
    expect(await feedReleases()).toEqual(before)

    expect(await latestPullAudit()).toMatchObject({ outcome: 'failure' })
  })

  it('should refuse an upstream answer over the limit in bytes, and stop reading it there', async () => {
    const before = await feedReleases()
    // No content-length: only counting the bytes as they arrive can notice.
    const endless = streamedBody(UPSTREAM_MAX_BYTES * 4)
    fakeOrigin(UPSTREAM_ORIGIN, () => new Response(endless.body, { headers: { etag: '"big"' } }))
    const streamed = await pull()
    expect(streamed).toMatchObject({ lastStatus: 'failed' })
    expect(streamed.lastError).toMatch(new RegExp(`larger than ${UPSTREAM_MAX_BYTES} bytes`))
    expect(endless.progress.cancelled).toBe(true)
    expect(endless.progress.served).toBeLessThan(UPSTREAM_MAX_BYTES + 256 * 1024)

    // Two bytes per character in UTF-8: over the limit in bytes while under it in UTF-16 units.
    const wide = JSON.stringify({ releases: [], padding: 'é'.repeat(UPSTREAM_MAX_BYTES / 2 + 1) })
    expect(wide.length).toBeLessThan(UPSTREAM_MAX_BYTES)
    fakeOrigin(UPSTREAM_ORIGIN, () => new Response(new Blob([wide]).stream()))
    const multiByte = await pull()
    expect(multiByte).toMatchObject({ lastStatus: 'failed' })
    expect(multiByte.lastError).toMatch(/larger than/)
    expect(await feedReleases()).toEqual(before)
  })

  it('should add new upstream releases, rewrite changed ones and drop those gone upstream', async () => {
    upstream({
      releases: [
        release('0.11.0', '2026-03-01'),
        release('0.10.0', '2026-02-01', {
          title: 'Renamed upstream',
          items: [{ category: 'fixed', text: 'Fixed.' }],
        }),
      ],
    })
    const result = await pull()
    expect(result).toMatchObject({
      lastStatus: 'ok',
      lastError: null,
      added: 1,
      updated: 1,
      removed: 1,
      skipped: [],
    })
    const releases = await feedReleases()
    expect(releases.map((r) => r.version)).toEqual(['0.11.0', '0.10.0'])
    expect(releases[1]).toMatchObject({
      title: 'Renamed upstream',
      items: [{ category: 'fixed', text: 'Fixed.' }],
    })
    expect(releases[1]).not.toHaveProperty('i18n')
  })

  it('should leave mirrored releases to the upstream: no local edits', async () => {
    const [mirrored] = await ok<ReleaseRow[]>('changelog.releases.list', { state: 'published' }, admin)
    if (!mirrored) throw new Error('no mirrored release')
    for (const [name, input] of [
      ['changelog.releases.update', { id: mirrored.id, title: 'Local edit' }],
      ['changelog.releases.unpublish', { id: mirrored.id }],
      ['changelog.releases.remove', { id: mirrored.id }],
      [
        'changelog.releases.setTranslation',
        { id: mirrored.id, lang: 'de', title: 'T', items: [{ text: 'x' }], machine: false },
      ],
    ] as const) {
      const res = await call(name, input, admin)
      expect(res.status, `${name}: ${res.text}`).toBe(409)
    }
  })

  it('should keep a local release when the upstream uses its version', async () => {
    upstream({
      releases: [
        release('0.11.0', '2026-03-01'),
        release('0.10.0', '2026-02-01'),
        release('0.5.0', '2026-01-15'),
      ],
    })
    const result = await pull()
    expect(result.skipped).toEqual(['0.5.0'])
    const rows = await ok<ReleaseRow[]>('changelog.releases.list', {}, admin)
    const local = rows.find((r) => r.version === '0.5.0')
    expect(local).toMatchObject({ source: 'local', state: 'draft', title: 'A local draft' })
    expect((await feedReleases()).map((r) => r.version)).toEqual(['0.11.0', '0.10.0'])
  })

  it('should record a failure while storing a pull, keep the last good copy, and fetch in full next time', async () => {
    const before = await feedReleases()
    const { etag } = upstream({
      releases: [
        release('0.12.0', '2026-04-01'),
        release('0.11.0', '2026-03-01'),
        release('0.10.0', '2026-02-01'),
      ],
    })
    await workerEnv.DB.prepare(
      "CREATE TRIGGER refuse_mirror_writes BEFORE INSERT ON changelog_releases BEGIN SELECT RAISE(ABORT, 'storage refused the write'); END",
    ).run()
    try {
      await runCron()
      const afterCron = await state()
      expect(afterCron).toMatchObject({ lastStatus: 'failed' })
      expect(afterCron.lastError).toMatch(/storage refused the write/)

      const res = await call<PullResult>('changelog.mirror.pull', {}, admin)
      expect(res.status, res.text).toBe(200)
      expect(res.body).toMatchObject({ lastStatus: 'failed', added: 0, updated: 0, removed: 0 })
      expect(res.body.lastError).toMatch(/storage refused the write/)
      expect(await latestPullAudit()).toMatchObject({ outcome: 'failure' })
      expect(await feedReleases()).toEqual(before)
    } finally {
      await workerEnv.DB.prepare('DROP TRIGGER refuse_mirror_writes').run()
    }

    const { hits } = upstream(
      {
        releases: [
          release('0.12.0', '2026-04-01'),
          release('0.11.0', '2026-03-01'),
          release('0.10.0', '2026-02-01'),
        ],
      },
      etag,
    )
    const recovered = await pull()
    // The failed save kept the old ETag, so the panel asked for the whole feed again.
    expect(hits[0]?.headers.get('if-none-match')).not.toBe(etag)
    expect(recovered).toMatchObject({ lastStatus: 'ok', lastError: null, added: 1 })
    expect((await feedReleases()).map((r) => r.version)).toEqual(['0.12.0', '0.11.0', '0.10.0'])
  })

  it('should store a large pull in batches that each stay within the statement cap', async () => {
    const translated = (version: string) => ({
      title: `T ${version}`,
      summary: null,
      items: [{ text: `Item ${version}.` }],
      machine: true,
    })
    const many = Array.from({ length: 300 }, (_, i) =>
      release(`1.${i}.0`, '2026-05-01', {
        i18n: { de: translated('de'), fr: translated('fr'), 'pt-BR': translated('pt') },
      }),
    )
    upstream({ releases: many })
    const batch = workerEnv.DB.batch.bind(workerEnv.DB)
    const sizes: number[] = []
    const spy = vi.spyOn(workerEnv.DB, 'batch').mockImplementation((statements) => {
      sizes.push(statements.length)
      return batch(statements)
    })
    let result: PullResult
    try {
      result = await pull()
    } finally {
      spy.mockRestore()
    }
    expect(result).toMatchObject({ lastStatus: 'ok', lastError: null, added: 300, removed: 3 })
    expect(Math.max(...sizes)).toBeLessThanOrEqual(MIRROR_BATCH_STATEMENTS)
    const releases = await feedReleases()
    expect(releases).toHaveLength(300)
    expect(releases.every((r) => Object.keys(r.i18n ?? {}).length === 3)).toBe(true)
  })

  it('should keep the mirrored releases when the upstream is set to the same URL', async () => {
    const before = await feedReleases()
    expect(await ok<MirrorState>('changelog.mirror.set', { upstream: UPSTREAM }, admin)).toMatchObject({
      upstream: UPSTREAM,
      lastStatus: 'ok',
    })
    expect(await feedReleases()).toEqual(before)
  })

  it("should drop the old upstream's releases and translations at once when the upstream changes", async () => {
    const other = 'https://other-upstream.example.test/api/v1/meta/changelog'
    expect(await ok<MirrorState>('changelog.mirror.set', { upstream: other }, admin)).toEqual({
      upstream: other,
      lastPulledAt: null,
      lastStatus: null,
      lastError: null,
    })
    expect(await feedReleases()).toEqual([])
    const rows = await ok<ReleaseRow[]>('changelog.releases.list', {}, admin)
    expect(rows.map((r) => [r.version, r.source])).toEqual([['0.5.0', 'local']])
    const left = await workerEnv.DB.prepare('SELECT count(*) AS n FROM changelog_translations').first<{
      n: number
    }>()
    expect(left?.n).toBe(0)
  })

  it('should store nothing from a pull that raced a change of upstream', async () => {
    const other = 'https://other-upstream.example.test/api/v1/meta/changelog'
    fakeOrigin(new URL(other).origin, () => Response.json({ releases: [release('3.0.0', '2026-06-01')] }))
    const database = db(workerEnv.DB)
    const outcome = await pullMirror(database)
    if (!outcome) throw new Error('no pull')
    expect(outcome).toMatchObject({ state: { lastStatus: 'ok' }, added: 1 })
    // Another request changes the upstream between this pull's fetch and its writes.
    const setTo = (url: string) =>
      workerEnv.DB.prepare("UPDATE changelog_mirror SET upstream = ? WHERE id = 'upstream'").bind(url).run()
    await setTo('https://third-upstream.example.test/feed')
    try {
      const stored = await storePull(database, outcome)
      await database.batch([stored.record])
      expect(stored.state.lastStatus).toBe('failed')
    } finally {
      await setTo(other)
    }
    expect(await feedReleases()).toEqual([])
    expect(await state()).toEqual({ upstream: other, lastPulledAt: null, lastStatus: null, lastError: null })
  })

  it('should drop the mirrored releases when the upstream is cleared, and audit it', async () => {
    expect(await ok<MirrorState>('changelog.mirror.set', { upstream: null }, admin)).toEqual({
      upstream: null,
      lastPulledAt: null,
      lastStatus: null,
      lastError: null,
    })
    expect(await feedReleases()).toEqual([])
    const rows = await ok<ReleaseRow[]>('changelog.releases.list', {}, admin)
    expect(rows.map((r) => r.version)).toEqual(['0.5.0'])
    const audit = await ok<{ entries: { action: string }[] }>(
      'audit.list',
      { action: 'changelog.mirror-set' },
      admin,
    )
    expect(audit.entries).toHaveLength(4)
    await runCron()
    expect(outboundRequests()).toHaveLength(0)
  })
})
