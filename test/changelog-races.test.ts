import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { captureJobs, createRelease, type ReleaseRow, workerEnv } from './helpers/changelog'
import { type Caller, call, ok } from './helpers/http'
import { interceptOutbound } from './helpers/outbound'
import { adminSession } from './helpers/principals'
import { raced } from './helpers/races'

interface Target {
  id: string
  url: string
  enabled: boolean
}

let admin: Caller
let versionCounter = 0
const nextVersion = () => `20.${++versionCounter}.0`

async function deliveryCount(releaseId: string): Promise<number> {
  const row = await workerEnv.DB.prepare(
    'SELECT count(*) AS n FROM changelog_webhook_deliveries WHERE release_id = ?',
  )
    .bind(releaseId)
    .first<{ n: number }>()
  return row?.n ?? 0
}

const getRelease = (id: string) => ok<ReleaseRow>('changelog.releases.get', { id }, admin)

beforeAll(async () => {
  admin = await adminSession()
  captureJobs()
  interceptOutbound()
  await ok(
    'changelog.webhooks.create',
    { url: 'https://hooks.example.test/races', secret: 'target-secret-0123456789abcdef' },
    admin,
  )
})

beforeEach(() => {
  interceptOutbound()
})

describe('changelog.releases.update racing publish', () => {
  it('should answer the stale update 409 and leave the release published with its deliveries', async () => {
    const draft = await createRelease(admin, nextVersion())
    const { main, rival } = await raced(
      () => call('changelog.releases.update', { id: draft.id, title: 'Edited meanwhile' }, admin),
      () => call('changelog.releases.publish', { id: draft.id }, admin),
    )
    expect(rival.status, rival.text).toBe(200)
    expect(main.status, main.text).toBe(409)
    expect((main.body as { code: string }).code).toBe('conflict')
    const release = await getRelease(draft.id)
    expect(release.state).toBe('published')
    expect(release.title).toBe(draft.title)
    expect(await deliveryCount(draft.id)).toBe(1)
  })

  it('should answer a publish that read a release edited meanwhile 409, so no stale body is announced', async () => {
    const draft = await createRelease(admin, nextVersion())
    const { main, rival } = await raced(
      () => call('changelog.releases.publish', { id: draft.id }, admin),
      () => call('changelog.releases.update', { id: draft.id, title: 'Edited first' }, admin),
    )
    expect(rival.status, rival.text).toBe(200)
    expect(main.status, main.text).toBe(409)
    const release = await getRelease(draft.id)
    expect(release).toMatchObject({ state: 'draft', title: 'Edited first' })
    expect(await deliveryCount(draft.id)).toBe(0)
  })

  it('should never end a round of interleaved update and publish as a draft with deliveries', async () => {
    for (let round = 0; round < 6; round++) {
      const draft = await createRelease(admin, nextVersion())
      const update = () => call('changelog.releases.update', { id: draft.id, title: `Round ${round}` }, admin)
      const publish = () => call('changelog.releases.publish', { id: draft.id }, admin)
      const { main, rival } = round % 2 === 0 ? await raced(update, publish) : await raced(publish, update)
      const release = await getRelease(draft.id)
      const deliveries = await deliveryCount(draft.id)
      expect({ round, state: release.state, deliveries }).toEqual({
        round,
        state: release.state,
        deliveries: release.state === 'published' ? 1 : 0,
      })
      for (const res of [main, rival]) expect([200, 409], res.text).toContain(res.status)
    }
  })

  it('should keep an edit that landed while unpublish read the release', async () => {
    const draft = await createRelease(admin, nextVersion())
    await ok('changelog.releases.publish', { id: draft.id }, admin)
    const { main, rival } = await raced(
      () => call('changelog.releases.unpublish', { id: draft.id }, admin),
      () => call('changelog.releases.update', { id: draft.id, title: 'Edited while unpublishing' }, admin),
    )
    expect(rival.status, rival.text).toBe(200)
    expect(main.status, main.text).toBe(200)
    expect(await getRelease(draft.id)).toMatchObject({ state: 'draft', title: 'Edited while unpublishing' })
  })
})

describe('changelog.webhooks.update racing another change', () => {
  it('should keep the concurrent change and answer the stale update 409', async () => {
    const target = await ok<Target>(
      'changelog.webhooks.create',
      { url: 'https://hooks.example.test/stale', secret: 'target-secret-0123456789abcdef', enabled: false },
      admin,
    )
    const { main, rival } = await raced(
      () =>
        call('changelog.webhooks.update', { id: target.id, url: 'https://hooks.example.test/new' }, admin),
      () => call('changelog.webhooks.update', { id: target.id, enabled: true }, admin),
    )
    expect(rival.status, rival.text).toBe(200)
    expect(main.status, main.text).toBe(409)
    const [row] = (await ok<Target[]>('changelog.webhooks.list', {}, admin)).filter((t) => t.id === target.id)
    expect(row).toMatchObject({ url: 'https://hooks.example.test/stale', enabled: true })
  })

  it('should change only the fields it was given', async () => {
    const target = await ok<Target>(
      'changelog.webhooks.create',
      { url: 'https://hooks.example.test/partial', secret: 'target-secret-0123456789abcdef', enabled: false },
      admin,
    )
    const updated = await ok<Target>('changelog.webhooks.update', { id: target.id, enabled: true }, admin)
    expect(updated).toMatchObject({ url: 'https://hooks.example.test/partial', enabled: true })
  })
})
