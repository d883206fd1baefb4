import { and, eq, ne, or } from 'drizzle-orm'
import type { Vhost } from '../agent-contract/v1'
import type { BatchItem, Db } from '../db/client'
import { accountDefaults, accounts } from '../db/schema/accounts'
import { instances, sites } from '../db/schema/fleet'
import { routes } from '../db/schema/routes'
import { type RouteWrites, removeRoute } from '../routes/http-route'
import { bumpVersion, reachedVersion } from '../routes/versions'

/** The read of the live route holding a hostname, if any (at most one: the claim and a unique index see to it). */
export function liveRouteRead(db: Db, hostname: string) {
  return db
    .select({ id: routes.id, nodeId: routes.nodeId, kind: routes.kind, hostname: routes.hostname })
    .from(routes)
    .where(and(eq(routes.hostname, hostname), ne(routes.status, 'removed')))
    .limit(1)
}

/**
 * The issuer of the site's certificates: its ssl-issuer default (instance, then node, as the account cascade
 * walks them) when that is pebble. One read: a status's DNS check asks it beside its lookups.
 */
export async function issuerFor(db: Db, siteId: string): Promise<Vhost['issuer']> {
  const defaults = await db
    .select({ scope: accountDefaults.scope, provider: accounts.provider })
    .from(sites)
    .innerJoin(instances, eq(instances.id, sites.instanceId))
    .innerJoin(
      accountDefaults,
      and(
        eq(accountDefaults.kind, 'ssl-issuer'),
        or(
          and(eq(accountDefaults.scope, 'instance'), eq(accountDefaults.scopeId, instances.id)),
          and(eq(accountDefaults.scope, 'node'), eq(accountDefaults.scopeId, instances.nodeId)),
        ),
      ),
    )
    .innerJoin(accounts, eq(accounts.id, accountDefaults.accountId))
    .where(eq(sites.id, siteId))
  return issuerOf(
    defaults.find((row) => row.scope === 'instance') ?? defaults.find((row) => row.scope === 'node'),
  )
}

/** The issuer an ssl-issuer account (or none) stands for. */
export function issuerOf(account: { provider: string } | null | undefined): Vhost['issuer'] {
  return account?.provider === 'pebble' ? 'pebble' : 'letsencrypt'
}

/** Writes that change what a node is pushed, ending with the read of the version they reach. */
export interface NodePush {
  nodeId: string
  writes: BatchItem[]
}

/**
 * Puts `writes` (which raise the node's version) in a push: placed last in the batch, the version the batch reached
 * is its last result, for `queueReconcile` after the commit.
 */
export function nodePush(db: Db, { nodeId, writes }: Pick<RouteWrites, 'nodeId' | 'writes'>): NodePush {
  return { nodeId, writes: [...writes, reachedVersion(db, nodeId)] }
}

/**
 * A new version of the node routing a hostname, for a batch that changed whether its certificate may be issued
 * (the edge state renders that too); null when no live http route holds it.
 */
export function pushOfLiveRoute(
  db: Db,
  live: { nodeId: string; kind: string; hostname: string | null } | undefined,
  now: Date,
): NodePush | null {
  if (live?.kind !== 'http' || !live.hostname) return null
  return nodePush(db, {
    nodeId: live.nodeId,
    writes: bumpVersion(db, live.nodeId, now, { vhost: live.hostname }),
  })
}

/** The writes that take the hostname's route off its node, for the remove batch; null when it has none. */
export async function unrouteHostname(db: Db, hostname: string): Promise<RouteWrites | null> {
  const [live] = await liveRouteRead(db, hostname)
  return live ? removeRoute(db, live.id) : null
}
