import { type SQL, sql } from 'drizzle-orm'
import { failUnless, isGuardFailure } from '../db/batch-guard'
import type { Db } from '../db/client'
import { instances, sites } from '../db/schema/fleet'
import { nodeHostnameCounts, siteHostnameCounts } from '../db/schema/hostname-counts'
import type { Env } from '../env'
import { AppError } from '../rpc/errors'

const DEFAULT_PER_SITE = 100_000
/**
 * The node cap's default is also its ceiling: the agent contract takes MAX_VHOSTS_PER_STATE (110,000) vhosts,
 * which leaves room for 10,000 domains attached after a node's custom hostnames reached the cap (domains count,
 * but are never refused).
 */
export const MAX_PER_NODE = 100_000

const SITE_GUARD = 'custom hostnames per site'
const NODE_GUARD = 'hostnames per node'

/** An installation's caps: CUSTOM_HOSTNAMES_PER_SITE and CUSTOM_HOSTNAMES_PER_NODE, or the defaults. */
export function hostnameCaps(env: Env): { perSite: number; perNode: number } {
  return {
    perSite: capOf(env.CUSTOM_HOSTNAMES_PER_SITE) ?? DEFAULT_PER_SITE,
    perNode: Math.min(capOf(env.CUSTOM_HOSTNAMES_PER_NODE) ?? MAX_PER_NODE, MAX_PER_NODE),
  }
}

function capOf(value: string | undefined): number | null {
  return value !== undefined && /^\d+$/.test(value.trim()) ? Number(value) : null
}

// Every row counts from register until it is gone, whatever its state: an instructions row that never resolved
// is routed like any other, so it is a vhost on the node all the same. The count is one row, kept by triggers.
function siteCount(siteId: string): SQL {
  const held = sql`(select ${siteHostnameCounts.customHostnames} from ${siteHostnameCounts} where ${siteHostnameCounts.siteId} = ${siteId})`
  return sql`coalesce(${held}, 0)`
}

// Every http route on a node is the route of a hostname claimed by one of its sites (a custom hostname or a
// domain), and a claim has at most one live route, so the claims bound the vhosts the node is pushed.
function nodeCount(siteId: string): SQL {
  const siteInstance = sql`(select ${sites.instanceId} from ${sites} where ${sites.id} = ${siteId})`
  const node = sql`(select ${instances.nodeId} from ${instances} where ${instances.id} = ${siteInstance})`
  const held = sql`(select ${nodeHostnameCounts.claims} from ${nodeHostnameCounts} where ${nodeHostnameCounts.nodeId} = ${node})`
  return sql`coalesce(${held}, 0)`
}

/**
 * The guards for the batch that inserts a new custom hostname on the site: the batch fails unless the site and
 * its node are both below their caps when it runs, so concurrent registers can never pass a cap together.
 * `refusal` turns such a failure into 422 `limit_reached` naming the cap (null for any other error).
 */
export function capGuards(db: Db, env: Env, siteId: string) {
  const { perSite, perNode } = hostnameCaps(env)
  return {
    guards: [
      failUnless(db, sql`${siteCount(siteId)} < ${perSite}`, SITE_GUARD),
      failUnless(db, sql`${nodeCount(siteId)} < ${perNode}`, NODE_GUARD),
    ],
    refusal(error: unknown): AppError | null {
      if (isGuardFailure(error, SITE_GUARD))
        return new AppError(
          'limit_reached',
          `the site holds its cap of ${perSite} custom hostnames (CUSTOM_HOSTNAMES_PER_SITE); remove one before registering another`,
        )
      if (isGuardFailure(error, NODE_GUARD))
        return new AppError(
          'limit_reached',
          `the site's node serves its cap of ${perNode} hostnames, custom hostnames and domains of all its sites (CUSTOM_HOSTNAMES_PER_NODE); remove one first`,
        )
      return null
    },
  }
}
