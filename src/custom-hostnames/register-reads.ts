import { and, eq } from 'drizzle-orm'
import type { Vhost } from '../agent-contract/v1'
import type { Db } from '../db/client'
import { customHostnames } from '../db/schema/custom-hostnames'
import { siteDefaultAccount } from '../dns-accounts/site-default'
import { httpRouteWrites, type SiteRouteChain, siteRouteChain } from '../routes/http-route'
import { prefetchReads } from '../rpc/prefetch'
import { type FactsRow, planFactsRead } from './facts'
import { issuerOf, liveRouteRead, type NodePush, nodePush } from './route'
import type { CustomHostnameRecord } from './rows'

type Input = { siteId: string; hostname: string }

/** Everything register decides from, read in one batch beside the caller's authentication. */
export interface RegisterReads {
  /** The planner's facts (`toPlanFacts` turns them into a plan, or a 404 for an unknown site). */
  facts: FactsRow | undefined
  /** The issuer of the site's certificates (its ssl-issuer default, instance then node). */
  issuer: Vhost['issuer']
  /** The live route holding the hostname, if any. */
  live: { id: string; nodeId: string; kind: string; hostname: string | null } | undefined
  /** What a new route of the site is built from; undefined when the site is gone. */
  chain: SiteRouteChain | undefined
  /** The site's row for the hostname, when it registered it before. */
  row: CustomHostnameRecord | undefined
}

/** register's prefetch: every read is keyed by the input's site and hostname, none by the caller. */
export function registerReads(input: Input, db: Db) {
  return prefetchReads(
    [
      planFactsRead(db, input.siteId, input.hostname),
      siteDefaultAccount(db, 'ssl-issuer', input.siteId),
      liveRouteRead(db, input.hostname),
      siteRouteChain(db, input.siteId),
      db
        .select()
        .from(customHostnames)
        .where(and(eq(customHostnames.siteId, input.siteId), eq(customHostnames.hostname, input.hostname))),
    ],
    ([facts, issuer, live, chain, rows]): RegisterReads => ({
      facts: facts[0],
      issuer: issuerOf(issuer[0]?.account),
      live: live[0],
      chain: chain[0],
      row: rows[0],
    }),
  )
}

/**
 * The push that routes a registered hostname to its site (so the node serves it and its certificate can be issued
 * on demand), for the register batch; null when a live route holds it already. 404 when the site is gone.
 */
export function routePush(db: Db, reads: RegisterReads, input: Input): NodePush | null {
  if (reads.live) return null
  return nodePush(db, httpRouteWrites(db, reads.chain, { ...input, issuer: reads.issuer }))
}
