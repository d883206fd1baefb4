import { beforeAll, describe, expect, it } from 'vitest'
import { captureJobs, createRelease, publishRelease, type ReleaseRow, workerEnv } from './helpers/changelog'
import { type Caller, call, ok, send } from './helpers/http'
import { adminSession, operatorSession, tokenFor } from './helpers/principals'

let admin: Caller

interface Problem {
  code: string
  issues?: { path: string; message: string }[]
}

const ADMIN_ROW_KEYS = [
  'createdAt',
  'createdBy',
  'date',
  'i18n',
  'id',
  'items',
  'phase',
  'publishedAt',
  'severity',
  'source',
  'state',
  'summary',
  'title',
  'updatedAt',
  'version',
]

async function feedVersions(): Promise<string[]> {
  const res = await send('/api/v1/meta/changelog')
  return (res.body as { releases: { version: string }[] }).releases.map((r) => r.version)
}

async function feedRelease(version: string) {
  const res = await send('/api/v1/meta/changelog')
  return (
    res.body as { releases: { version: string; title: string; summary: string | null }[] }
  ).releases.find((r) => r.version === version)
}

async function expectInvalid(name: string, input: unknown, path: string) {
  const res = await call<Problem>(name, input, admin)
  expect(res.status, res.text).toBe(400)
  expect(res.body.code).toBe('validation_failed')
  expect(res.body.issues?.map((i) => i.path)).toContain(path)
  return res
}

async function auditActions(targetId: string): Promise<string[]> {
  const page = await ok<{ entries: { action: string }[] }>('audit.list', { targetId }, admin)
  return page.entries.map((e) => e.action).reverse()
}

beforeAll(async () => {
  admin = await adminSession()
  captureJobs()
})

describe('changelog.releases.create', () => {
  it('should create a draft that carries its internal fields for admins', async () => {
    const row = await createRelease(admin, '2.0.0', {
      severity: 'major',
      summary: 'A big one.',
      phase: 'beta-2',
      items: [{ category: 'new', text: 'Everything.' }],
    })
    expect(Object.keys(row).sort()).toEqual(ADMIN_ROW_KEYS)
    expect(row).toMatchObject({
      version: '2.0.0',
      severity: 'major',
      summary: 'A big one.',
      phase: 'beta-2',
      source: 'local',
      state: 'draft',
      date: null,
      publishedAt: null,
      i18n: {},
      items: [{ category: 'new', text: 'Everything.' }],
    })
    expect(row.createdBy).toEqual(expect.any(String))
    expect(await feedVersions()).not.toContain('2.0.0')
  })

  it('should refuse a version that is not semver, naming the field', async () => {
    for (const version of ['1.0', 'v1.0.0', '01.0.0', '1.0.0-', '1.0.0+', 'latest']) {
      await expectInvalid('changelog.releases.create', { version, title: 'x', severity: 'patch' }, 'version')
    }
  })

  it('should answer 409 to a duplicate version', async () => {
    await createRelease(admin, '2.1.0')
    const res = await call<Problem>(
      'changelog.releases.create',
      { version: '2.1.0', title: 'Again', severity: 'patch' },
      admin,
    )
    expect(res.status, res.text).toBe(409)
    expect(res.body.code).toBe('conflict')
  })

  it('should refuse an unknown severity, category or field', async () => {
    await expectInvalid(
      'changelog.releases.create',
      { version: '2.2.0', title: 'x', severity: 'huge' },
      'severity',
    )
    await expectInvalid(
      'changelog.releases.create',
      { version: '2.2.0', title: 'x', severity: 'patch', items: [{ category: 'removed', text: 'y' }] },
      'items.0.category',
    )
    await expectInvalid(
      'changelog.releases.create',
      { version: '2.2.0', title: 'x', severity: 'patch', author: 'me' },
      'author',
    )
  })

  it.each([
    ['a line break', 'First line.\nSecond line.'],
    ['a carriage return', 'First line.\rSecond.'],
    ['an HTML tag', 'Now <b>faster</b>.'],
    ['an HTML entity', 'Fish &amp; chips.'],
    ['markdown bold', 'Now **much** faster.'],
    ['markdown emphasis', 'Now *much* faster.'],
    ['markdown code', 'Run `npm start`.'],
    ['a markdown link', 'See [the docs](https://example.com).'],
    ['a markdown heading', '# Release notes'],
    ['a markdown list item', '- one thing'],
    ['a markdown quote', '> quoted'],
  ])('should refuse a summary with %s, naming the field', async (_what, summary) => {
    const res = await expectInvalid(
      'changelog.releases.create',
      { version: '2.3.0', title: 'x', severity: 'patch', summary },
      'summary',
    )
    expect(res.body.issues?.[0]?.message).toMatch(/plain text/)
  })

  it('should refuse markup in an item text and in the title, naming the field', async () => {
    await expectInvalid(
      'changelog.releases.create',
      {
        version: '2.3.0',
        title: 'x',
        severity: 'patch',
        items: [
          { category: 'new', text: 'ok' },
          { category: 'fixed', text: '__bold__' },
        ],
      },
      'items.1.text',
    )
    await expectInvalid(
      'changelog.releases.create',
      { version: '2.3.0', title: '<h1>T</h1>', severity: 'patch' },
      'title',
    )
  })

  it('should accept ordinary prose, URLs and arithmetic as plain text', async () => {
    const summary =
      'Faster builds (2 * 3 = 6 times), C# support, a < b comparisons, snake_case names and https://example.com/docs, 100% tested!'
    const row = await createRelease(admin, '2.3.0', {
      summary,
      items: [{ category: 'improved', text: 'Node 24 & npm 11.' }],
    })
    expect(row.summary).toBe(summary)
  })
})

describe('changelog.releases lifecycle', () => {
  it('should publish on a given date, refuse a second publish, and show in the feed', async () => {
    const draft = await createRelease(admin, '3.0.0')
    const published = await ok<ReleaseRow>(
      'changelog.releases.publish',
      { id: draft.id, date: '2026-04-01' },
      admin,
    )
    expect(published).toMatchObject({ state: 'published', date: '2026-04-01' })
    expect(published.publishedAt).toEqual(expect.any(String))
    expect(await feedVersions()).toContain('3.0.0')
    const again = await call('changelog.releases.publish', { id: draft.id }, admin)
    expect(again.status, again.text).toBe(409)
  })

  it('should refuse an impossible publication date', async () => {
    const draft = await createRelease(admin, '3.0.1')
    for (const date of ['2026-02-30', '2026-13-01', '26-01-01', '2026-01-01T00:00:00Z']) {
      await expectInvalid('changelog.releases.publish', { id: draft.id, date }, 'date')
    }
  })

  it('should change the feed when a published release is edited', async () => {
    const release = await publishRelease(admin, '3.1.0', '2026-04-02', { summary: 'Before.' })
    await ok('changelog.releases.update', { id: release.id, title: 'Edited title', summary: null }, admin)
    expect(await feedRelease('3.1.0')).toMatchObject({ title: 'Edited title', summary: null })
  })

  it('should let a draft change its version but not a published release', async () => {
    const draft = await createRelease(admin, '3.2.0')
    const renamed = await ok<ReleaseRow>(
      'changelog.releases.update',
      { id: draft.id, version: '3.2.1' },
      admin,
    )
    expect(renamed.version).toBe('3.2.1')
    const taken = await call('changelog.releases.update', { id: draft.id, version: '3.0.0' }, admin)
    expect(taken.status, taken.text).toBe(409)
    const published = await publishRelease(admin, '3.3.0', '2026-04-03')
    const res = await call('changelog.releases.update', { id: published.id, version: '3.3.1' }, admin)
    expect(res.status, res.text).toBe(409)
  })

  it('should refuse an unknown field and markup on update too', async () => {
    const draft = await createRelease(admin, '3.4.0')
    await expectInvalid('changelog.releases.update', { id: draft.id, titel: 'typo' }, 'titel')
    await expectInvalid('changelog.releases.update', { id: draft.id, summary: 'two\nlines' }, 'summary')
  })

  it('should unpublish back to a draft that leaves the feed, and refuse to unpublish a draft', async () => {
    const release = await publishRelease(admin, '3.5.0', '2026-04-04')
    const draft = await ok<ReleaseRow>('changelog.releases.unpublish', { id: release.id }, admin)
    expect(draft).toMatchObject({ state: 'draft', date: null, publishedAt: null })
    expect(await feedVersions()).not.toContain('3.5.0')
    const res = await call('changelog.releases.unpublish', { id: release.id }, admin)
    expect(res.status, res.text).toBe(409)
  })

  it('should remove drafts only', async () => {
    const published = await publishRelease(admin, '3.6.0', '2026-04-05')
    const refused = await call('changelog.releases.remove', { id: published.id }, admin)
    expect(refused.status, refused.text).toBe(409)
    const draft = await createRelease(admin, '3.6.1', { items: [{ category: 'new', text: 'One.' }] })
    await ok(
      'changelog.releases.setTranslation',
      { id: draft.id, lang: 'de', title: 'T', items: [{ text: 'Eins.' }], machine: false },
      admin,
    )
    expect(await ok('changelog.releases.remove', { id: draft.id }, admin)).toEqual({ removed: true })
    const gone = await call('changelog.releases.get', { id: draft.id }, admin)
    expect(gone.status, gone.text).toBe(404)
    // The translations go with the release (the foreign key cascades).
    const left = await workerEnv.DB.prepare(
      'SELECT count(*) AS n FROM changelog_translations WHERE release_id = ?',
    )
      .bind(draft.id)
      .first<{ n: number }>()
    expect(left?.n).toBe(0)
  })

  it('should answer 404 for an unknown release on every procedure that takes an id', async () => {
    for (const [name, input] of [
      ['changelog.releases.get', { id: 'nope' }],
      ['changelog.releases.update', { id: 'nope', title: 'x' }],
      ['changelog.releases.publish', { id: 'nope' }],
      ['changelog.releases.unpublish', { id: 'nope' }],
      ['changelog.releases.remove', { id: 'nope' }],
      [
        'changelog.releases.setTranslation',
        { id: 'nope', lang: 'de', title: 'x', items: [], machine: false },
      ],
      ['changelog.releases.removeTranslation', { id: 'nope', lang: 'de' }],
    ] as const) {
      const res = await call(name, input, admin)
      expect(res.status, `${name}: ${res.text}`).toBe(404)
    }
  })

  it('should audit every mutation with its own action', async () => {
    const release = await createRelease(admin, '3.7.0', { items: [{ category: 'new', text: 'One.' }] })
    await ok('changelog.releases.update', { id: release.id, title: 'Audited' }, admin)
    await ok(
      'changelog.releases.setTranslation',
      { id: release.id, lang: 'fr', title: 'Audité', items: [{ text: 'Un.' }], machine: false },
      admin,
    )
    await ok('changelog.releases.removeTranslation', { id: release.id, lang: 'fr' }, admin)
    await ok('changelog.releases.publish', { id: release.id, date: '2026-04-06' }, admin)
    await ok('changelog.releases.unpublish', { id: release.id }, admin)
    await ok('changelog.releases.remove', { id: release.id }, admin)
    expect(await auditActions(release.id)).toEqual([
      'changelog.release-create',
      'changelog.release-update',
      'changelog.translation-set',
      'changelog.translation-remove',
      'changelog.release-publish',
      'changelog.release-unpublish',
      'changelog.release-remove',
    ])
  })
})

describe('changelog.releases.list and get', () => {
  it('should list drafts first, then published releases in feed order, and filter by state', async () => {
    const rows = await ok<ReleaseRow[]>('changelog.releases.list', {}, admin)
    const states = rows.map((r) => r.state)
    expect(states.indexOf('published')).toBeGreaterThan(states.lastIndexOf('draft'))
    const published = rows.filter((r) => r.state === 'published').map((r) => r.version)
    expect(published).toEqual(await feedVersions())
    const drafts = await ok<ReleaseRow[]>('changelog.releases.list', { state: 'draft' }, admin)
    expect(drafts.length).toBeGreaterThan(0)
    expect(drafts.every((r) => r.state === 'draft' && r.date === null)).toBe(true)
    expect(drafts.map((r) => r.version)).toContain('2.0.0')
    const onlyPublished = await ok<ReleaseRow[]>('changelog.releases.list', { state: 'published' }, admin)
    expect(onlyPublished.map((r) => r.version)).toEqual(published)
    for (const row of rows) expect(Object.keys(row).sort()).toEqual(ADMIN_ROW_KEYS)
  })

  it('should be admin-only: 403 for an operator, allowed for a token holding changelog:manage', async () => {
    const operator = await operatorSession(admin)
    for (const [name, input] of [
      ['changelog.releases.list', {}],
      ['changelog.releases.create', { version: '4.0.0', title: 'x', severity: 'patch' }],
    ] as const) {
      const res = await call(name, input, operator)
      expect(res.status, res.text).toBe(403)
    }
    const token = await tokenFor(admin, ['changelog:manage'])
    const res = await call('changelog.releases.list', {}, token)
    expect(res.status, res.text).toBe(200)
  })
})

describe('translations', () => {
  it('should store a translation under its canonical language tag and replace it on a second set', async () => {
    const release = await publishRelease(admin, '5.0.0', '2026-05-01', {
      summary: 'Summary.',
      items: [
        { category: 'new', text: 'A.' },
        { category: 'fixed', text: 'B.' },
      ],
    })
    const first = await ok<ReleaseRow>(
      'changelog.releases.setTranslation',
      {
        id: release.id,
        lang: 'pt-br',
        title: 'Título',
        items: [{ text: 'A-pt.' }, { text: 'B-pt.' }],
        machine: true,
      },
      admin,
    )
    expect(first.i18n).toEqual({
      'pt-BR': {
        title: 'Título',
        summary: null,
        items: [{ text: 'A-pt.' }, { text: 'B-pt.' }],
        machine: true,
      },
    })
    const second = await ok<ReleaseRow>(
      'changelog.releases.setTranslation',
      {
        id: release.id,
        lang: 'pt-BR',
        title: 'Título revisto',
        summary: 'Resumo.',
        items: [{ text: 'A2.' }, { text: 'B2.' }],
        machine: false,
      },
      admin,
    )
    expect(Object.keys(second.i18n as object)).toEqual(['pt-BR'])
    expect((await ok<ReleaseRow>('changelog.releases.get', { id: release.id }, admin)).i18n).toEqual(
      second.i18n,
    )
  })

  it('should refuse items that do not align with the release items, naming items', async () => {
    const release = await createRelease(admin, '5.1.0', { items: [{ category: 'new', text: 'Only one.' }] })
    const res = await expectInvalid(
      'changelog.releases.setTranslation',
      {
        id: release.id,
        lang: 'de',
        title: 'T',
        items: [{ text: 'Eins.' }, { text: 'Zwei.' }],
        machine: false,
      },
      'items',
    )
    expect(res.text).toMatch(/must have 1 entries/)
  })

  it('should refuse a category in translation items, a bad language tag and markup', async () => {
    const release = await createRelease(admin, '5.2.0', { items: [{ category: 'new', text: 'One.' }] })
    const base = { id: release.id, lang: 'de', title: 'T', items: [{ text: 'Eins.' }], machine: false }
    await expectInvalid(
      'changelog.releases.setTranslation',
      { ...base, items: [{ category: 'new', text: 'x' }] },
      'items.0.category',
    )
    await expectInvalid('changelog.releases.setTranslation', { ...base, lang: 'en_US' }, 'lang')
    await expectInvalid('changelog.releases.setTranslation', { ...base, lang: 'not a tag' }, 'lang')
    await expectInvalid('changelog.releases.setTranslation', { ...base, summary: '**fett**' }, 'summary')
    const { machine: _omitted, ...withoutMachine } = base
    await expectInvalid('changelog.releases.setTranslation', withoutMachine, 'machine')
  })

  it('should refuse an item-count change that would misalign a translation, and 404 an unknown translation', async () => {
    const release = await createRelease(admin, '5.3.0', { items: [{ category: 'new', text: 'One.' }] })
    await ok(
      'changelog.releases.setTranslation',
      { id: release.id, lang: 'de', title: 'T', items: [{ text: 'Eins.' }], machine: false },
      admin,
    )
    const res = await call(
      'changelog.releases.update',
      {
        id: release.id,
        items: [
          { category: 'new', text: 'One.' },
          { category: 'fixed', text: 'Two.' },
        ],
      },
      admin,
    )
    expect(res.status, res.text).toBe(409)
    expect(res.text).toContain('de')
    const missing = await call('changelog.releases.removeTranslation', { id: release.id, lang: 'fr' }, admin)
    expect(missing.status, missing.text).toBe(404)
  })
})
