import { beforeAll, describe, expect, it } from 'vitest'
import { type Caller, call, ok, send } from './helpers/http'
import { adminSession, operatorSession, tokenFor } from './helpers/principals'
import { createStatusPage, quietProbe, type StatusPage, uniqueSlug } from './status-pages/fixture'

let admin: Caller

beforeAll(async () => {
  admin = await adminSession()
})

async function auditActions(targetId: string): Promise<string[]> {
  const page = await ok<{ entries: { action: string }[] }>('audit.list', { targetId }, admin)
  return page.entries.map((entry) => entry.action).reverse()
}

describe('statusPages management', () => {
  it('should create, read, update and remove a page, auditing each change', async () => {
    const probe = await quietProbe(admin)
    const slug = uniqueSlug()
    const created = await createStatusPage(admin, {
      slug,
      title: 'Acme status',
      description: 'Our services',
      groups: [{ name: 'Web', probes: [{ probeId: probe.id, displayName: 'Website' }] }],
    })
    expect(created).toMatchObject({
      slug,
      title: 'Acme status',
      description: 'Our services',
      public: false,
      url: `https://panel.test/status/${slug}`,
      groups: [{ name: 'Web', probes: [{ probeId: probe.id, displayName: 'Website' }] }],
    })
    expect(await ok('statusPages.get', { id: created.id }, admin)).toEqual(created)

    const updated = await ok<StatusPage>(
      'statusPages.update',
      { id: created.id, public: true, description: null, title: 'Acme' },
      admin,
    )
    expect(updated).toMatchObject({ slug, title: 'Acme', description: null, public: true })
    expect(updated.groups).toEqual(created.groups)

    expect(await ok('statusPages.remove', { id: created.id }, admin)).toEqual({ removed: true })
    expect((await call('statusPages.get', { id: created.id }, admin)).status).toBe(404)
    expect((await call('statusPages.remove', { id: created.id }, admin)).status).toBe(404)
    expect(await auditActions(created.id)).toEqual([
      'status-page.create',
      'status-page.update',
      'status-page.remove',
    ])
  })

  it('should let a viewer read pages and refuse every change with 403, and anyone unauthenticated with 401', async () => {
    const page = await createStatusPage(admin)
    const viewToken = await tokenFor(admin, ['probes:view'])
    const operator = await operatorSession(admin)
    for (const reader of [viewToken, operator]) {
      expect((await call('statusPages.list', {}, reader)).status).toBe(200)
      expect((await call('statusPages.get', { id: page.id }, reader)).status).toBe(200)
      for (const [name, input] of [
        ['statusPages.create', { slug: uniqueSlug(), title: 'x' }],
        ['statusPages.update', { id: page.id, title: 'changed' }],
        ['statusPages.remove', { id: page.id }],
      ] as const) {
        const res = await call(name, input, reader)
        expect(res.status, `${name}: ${res.text}`).toBe(403)
      }
    }
    expect((await call('statusPages.list', {}, {})).status).toBe(401)
    expect((await ok<StatusPage>('statusPages.get', { id: page.id }, admin)).title).toBe(page.title)
  })

  it('should refuse a malformed slug, naming the field, and change nothing', async () => {
    for (const slug of ['Upper', 'with space', '-lead', 'trail-', 'a--b', 'ü', '']) {
      const res = await call<{ issues: { path: string }[] }>(
        'statusPages.create',
        { slug, title: 't' },
        admin,
      )
      expect(res.status, slug).toBe(400)
      expect(res.body.issues.map((issue) => issue.path)).toContain('slug')
    }
  })

  it('should refuse an unknown or archived probe with 400 naming its path, and store nothing', async () => {
    const probe = await quietProbe(admin)
    const archived = await quietProbe(admin)
    await ok('probes.archive', { id: archived.id }, admin)
    const slug = uniqueSlug()
    for (const missing of ['no-such-probe', archived.id]) {
      const res = await call<{ code: string; issues: { path: string; message: string }[] }>(
        'statusPages.create',
        {
          slug,
          title: 't',
          groups: [
            { name: 'A', probes: [{ probeId: probe.id, displayName: 'One' }] },
            {
              name: 'B',
              probes: [
                { probeId: probe.id, displayName: 'Two' },
                { probeId: missing, displayName: 'Three' },
              ],
            },
          ],
        },
        admin,
      )
      expect(res.status, res.text).toBe(400)
      expect(res.body.issues.map((issue) => issue.path)).toEqual(['groups.1.probes.1.probeId'])
    }
    const page = await createStatusPage(admin)
    const update = await call<{ issues: { path: string }[] }>(
      'statusPages.update',
      { id: page.id, groups: [{ name: 'A', probes: [{ probeId: 'nope', displayName: 'x' }] }] },
      admin,
    )
    expect(update.status).toBe(400)
    expect(update.body.issues.map((issue) => issue.path)).toEqual(['groups.0.probes.0.probeId'])
    expect((await ok<StatusPage>('statusPages.get', { id: page.id }, admin)).groups).toEqual([])
    const all = await ok<{ statusPages: StatusPage[] }>('statusPages.list', { limit: 500 }, admin)
    expect(all.statusPages.map((row) => row.slug)).not.toContain(slug)
  })

  it('should answer 409 to a slug another page holds, on create, update and two racing creates', async () => {
    const first = await createStatusPage(admin)
    const second = await createStatusPage(admin)
    const taken = await call<{ code: string; detail: string }>(
      'statusPages.create',
      { slug: first.slug, title: 'again' },
      admin,
    )
    expect(taken.status).toBe(409)
    expect(taken.body.detail).toContain(first.slug)
    const moved = await call('statusPages.update', { id: second.id, slug: first.slug }, admin)
    expect(moved.status).toBe(409)
    expect((await ok<StatusPage>('statusPages.get', { id: second.id }, admin)).slug).toBe(second.slug)
    // Keeping its own slug is no conflict.
    expect((await call('statusPages.update', { id: first.id, slug: first.slug }, admin)).status).toBe(200)

    const slug = uniqueSlug('race')
    const racing = await Promise.all(
      [1, 2, 3].map((n) => call('statusPages.create', { slug, title: `racer ${n}` }, admin)),
    )
    expect(racing.map((res) => res.status).sort()).toEqual([200, 409, 409])
  })

  it('should answer a private page exactly as an unknown one on every public face', async () => {
    const page = await createStatusPage(admin, { public: false })
    for (const path of [`/api/v1/status/${page.slug}`, `/api/v1/status/${page.slug}/badge.svg`]) {
      const privateAnswer = await send(path)
      const unknown = await send(path.replace(page.slug, uniqueSlug('unknown')))
      expect(privateAnswer.status).toBe(404)
      expect(unknown.status).toBe(404)
      expect(privateAnswer.headers.get('content-type')).toBe(unknown.headers.get('content-type'))
    }
    const html = await send(`/status/${page.slug}`)
    expect(html.status).toBe(404)
    expect(html.headers.get('content-type')).toContain('text/html')
    expect(html.text).toBe((await send(`/status/${uniqueSlug('unknown')}`)).text)
  })
})
