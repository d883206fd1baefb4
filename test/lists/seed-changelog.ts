import {
  changelogReleases,
  changelogWebhookDeliveries,
  changelogWebhookTargets,
} from '../../src/db/schema/changelog'
import { asArray, FUTURE, ids, inOrder, insertEach, type SeedContext, TIED_TIMES } from './seed-kit'

/** Changelog releases, webhook targets and their deliveries. */
export async function seedChangelogLists({ now, tag, newest }: SeedContext): Promise<void> {
  // Drafts newest first, then published releases by date and semver precedence (1.10.0 before 1.9.0).
  const release = (id: string, version: string, date: string | null, at: number) => ({
    id,
    version,
    title: `release ${version}`,
    severity: 'minor' as const,
    items: [],
    source: 'local' as const,
    date,
    publishedAt: date ? new Date(at) : null,
    createdAt: new Date(at),
    updatedAt: now,
  })
  const releaseIds = ids('release')

  const releaseRows = [
    release(releaseIds[0] ?? '', `0.0.1-draft.${tag}.0`, null, FUTURE + 1),
    release(releaseIds[1] ?? '', `0.0.1-draft.${tag}.1`, null, FUTURE + 2),
    release(releaseIds[2] ?? '', `99.1.0-${tag}`, '2099-01-01', FUTURE),
    release(releaseIds[3] ?? '', `0.0.1-draft.${tag}.2`, null, FUTURE + 2),
    release(releaseIds[4] ?? '', `99.9.0-${tag}`, '2099-01-02', FUTURE),
    release(releaseIds[5] ?? '', `99.10.0-${tag}`, '2099-01-02', FUTURE),
    release(releaseIds[6] ?? '', `0.0.1-draft.${tag}.3`, null, FUTURE + 1),
  ]
  await insertEach(changelogReleases, releaseRows)
  newest('changelog.releases.list', releaseIds, {
    expected: inOrder(releaseIds, [3, 1, 6, 0, 5, 4, 2]),
    shape: 'array',
    rowsOf: asArray,
  })

  const targetIds = ids('target')
  await insertEach(
    changelogWebhookTargets,
    targetIds.map((id, i) => ({
      id,
      url: `https://hooks.lists.example/${i}`,
      secretSealed: 'sealed',
      enabled: true,
      createdAt: new Date(TIED_TIMES[i] ?? 0),
      updatedAt: now,
    })),
  )
  newest('changelog.webhooks.list', targetIds, { shape: 'array', rowsOf: asArray })

  const deliveryIds = ids('delivery')
  await insertEach(
    changelogWebhookDeliveries,
    deliveryIds.map((id, i) => ({
      id,
      targetId: targetIds[0] ?? '',
      releaseId: releaseIds[2] ?? '',
      version: '99.1.0',
      body: '{}',
      status: 'delivered' as const,
      attempts: 1,
      createdAt: new Date(TIED_TIMES[i] ?? 0),
      updatedAt: now,
    })),
  )
  newest('changelog.webhooks.deliveries', deliveryIds, {
    input: { targetId: targetIds[0] },
    exclusive: true,
    shape: 'array',
    rowsOf: asArray,
  })
}
