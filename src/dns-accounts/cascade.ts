import { and, eq, or } from 'drizzle-orm'
import type { Db } from '../db/client'
import { accountDefaults } from '../db/schema/accounts'
import { getInstance, getNode } from '../fleet/rows'
import type { AccountKind } from './providers'
import { type AccountRecord, getAccount } from './rows'
import type { CascadeTarget, DefaultScope } from './schemas'

export interface ScopeRef {
  scope: DefaultScope
  scopeId: string
}

/**
 * The levels whose defaults apply to a target, most specific first: an instance walks to its node. Domains
 * have no table yet, so a domain answers only with its own default; once they do, this is the one place that
 * walks domain → its site's instance → node.
 */
export async function scopeChain(db: Db, target: CascadeTarget): Promise<ScopeRef[]> {
  if ('domainId' in target) return [{ scope: 'domain', scopeId: target.domainId }]
  if ('instanceId' in target) {
    const instance = await getInstance(db, target.instanceId)
    return [
      { scope: 'instance', scopeId: instance.id },
      { scope: 'node', scopeId: instance.nodeId },
    ]
  }
  return [{ scope: 'node', scopeId: (await getNode(db, target.nodeId)).id }]
}

/** Checks that the thing a default is set on exists (404 otherwise); domains cannot be checked yet. */
export async function assertScopeExists(db: Db, ref: ScopeRef): Promise<void> {
  if (ref.scope === 'node') await getNode(db, ref.scopeId)
  if (ref.scope === 'instance') await getInstance(db, ref.scopeId)
}

/** The account of a kind that applies to a target, and the level that supplied it (domain > instance > node). */
export async function resolveAccount(
  db: Db,
  kind: AccountKind,
  target: CascadeTarget,
): Promise<{ account: AccountRecord | null; source: DefaultScope | null }> {
  const chain = await scopeChain(db, target)
  const rows = await db
    .select()
    .from(accountDefaults)
    .where(
      and(
        eq(accountDefaults.kind, kind),
        or(
          ...chain.map((ref) =>
            and(eq(accountDefaults.scope, ref.scope), eq(accountDefaults.scopeId, ref.scopeId)),
          ),
        ),
      ),
    )
  for (const ref of chain) {
    const row = rows.find((r) => r.scope === ref.scope && r.scopeId === ref.scopeId)
    if (row) return { account: await getAccount(db, row.accountId), source: ref.scope }
  }
  return { account: null, source: null }
}
