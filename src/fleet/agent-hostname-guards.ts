import { eq, sql } from 'drizzle-orm'
import { failUnless, isGuardFailure } from '../db/batch-guard'
import type { Db } from '../db/client'
import { hostnameClaims } from '../db/schema/custom-hostnames'
import { nodes } from '../db/schema/fleet'
import { conflict } from '../rpc/errors'

// A name's DNS and vhost serve either a node's agent or a site, never both. So a node may not take a name a site
// holds (a domain or a custom hostname), and a domain may not take a node's agentHostname; each of those writes
// carries the guard against the other in its batch, so two concurrent writes cannot both land. (Custom hostname
// registration keeps the contract's own 409 cases, which do not include this one.)

const CLAIMED = 'agent hostname claimed'
const AGENT_ADDRESS = 'agent address'

/** Batch guard of a node write setting `hostname` as its agentHostname: no site holds the name. */
export function agentHostnameUnclaimed(db: Db, hostname: string) {
  return failUnless(
    db,
    sql`not exists (select 1 from ${hostnameClaims} where ${hostnameClaims.hostname} = ${hostname})`,
    CLAIMED,
  )
}

/** Batch guard of a domain attach: no node serves its agent under the hostname. */
export function notAnAgentAddress(db: Db, hostname: string) {
  return failUnless(
    db,
    sql`not exists (select 1 from ${nodes} where ${nodes.agentHostname} = ${hostname})`,
    AGENT_ADDRESS,
  )
}

/** The 409 of an agentHostname a site already holds, naming what holds it. */
export async function claimedConflict(db: Db, hostname: string) {
  const [claim] = await db.select().from(hostnameClaims).where(eq(hostnameClaims.hostname, hostname))
  const what = claim?.kind === 'custom-hostname' ? 'a custom hostname' : 'a domain'
  return conflict(
    `agentHostname ${hostname} is ${what} of site ${claim?.siteId ?? '(removed meanwhile)'}; its DNS and vhost serve that site, not the agent. Choose another name for the agent, or detach it from the site first`,
  )
}

/** The 409 of a domain on a name a node serves its agent under. */
export function agentAddressConflict(hostname: string, nodeName: string | null) {
  return conflict(
    `${hostname} is the agentHostname of node ${nodeName ?? '(set meanwhile)'}: the node's agent API is served there, and a domain would take its DNS and vhost. Attach another name, or change the node's agentHostname first`,
  )
}

/** Whether a batch failed on the guard against a claimed agentHostname. */
export const failedOnClaim = (error: unknown) => isGuardFailure(error, CLAIMED)

/** Whether a batch failed on the guard against an agent's address. */
export const failedOnAgentAddress = (error: unknown) => isGuardFailure(error, AGENT_ADDRESS)
