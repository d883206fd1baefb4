import { BOOTSTRAP, tokenFor } from '../helpers/principals'
import { asArray, cloneRow, field, ids, type SeedContext, TIED_TIMES, workerEnv } from './seed-kit'

/** Users, API tokens (the panel's and a site's) and the audit log. */
export async function seedAccessLists({ admin, site, cases, newest }: SeedContext): Promise<void> {
  const userIds = ids('user')
  await cloneRow(
    'users',
    { column: 'email', value: BOOTSTRAP.email },
    userIds.map((id, i) => ({
      id,
      email: `user-${id}@lists.test`,
      role: 'operator',
      created_at: TIED_TIMES[i],
    })),
  )
  newest('users.list', userIds, { shape: 'array', rowsOf: asArray })

  const token = await tokenFor(admin, ['fleet:view'])
  const tokenIds = ids('token')
  await cloneRow(
    'api_tokens',
    { column: 'id', value: token.tokenId },
    tokenIds.map((id, i) => ({ id, token_hash: `hash-${id}`, created_at: TIED_TIMES[i] })),
  )
  newest('tokens.list', tokenIds, { shape: 'array', rowsOf: asArray })

  const siteTokenIds = ids('site-token')
  await cloneRow(
    'api_tokens',
    { column: 'id', value: site.app.tokenId },
    siteTokenIds.map((id, i) => ({ id, token_hash: `hash-${id}`, created_at: TIED_TIMES[i] })),
  )
  newest('sites.tokens.list', siteTokenIds, {
    input: { siteId: site.siteId },
    shape: 'array',
    rowsOf: asArray,
  })

  // Audit entries page by their ascending id, newest (highest) first.
  const marker = `lists-${crypto.randomUUID()}`
  const lastAudit = await workerEnv.DB.prepare('select max(id) as id from audit_log').first<{ id: number }>()
  await cloneRow(
    'audit_log',
    { column: 'id', value: lastAudit?.id },
    TIED_TIMES.map((at) => ({ id: undefined, target_id: marker, created_at: at })),
  )
  const audit = await workerEnv.DB.prepare('select id from audit_log where target_id = ? order by id desc')
    .bind(marker)
    .all<{ id: number }>()
  cases['audit.list'] = {
    input: { targetId: marker },
    caller: admin,
    expected: audit.results.map((row) => String(row.id)),
    exclusive: true,
    shape: 'object',
    rowsOf: field('entries'),
    idOf: (row) => String(row.id),
  }
}
