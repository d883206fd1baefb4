import { and, eq, inArray, ne } from 'drizzle-orm'
import type { Context } from 'hono'
import { CALLBACK_PATHS, CertificateReportSchema } from '../agent-contract/v1'
import type { Db } from '../db/client'
import { hostnameClaims } from '../db/schema/custom-hostnames'
import { instances, sites } from '../db/schema/fleet'
import { routes } from '../db/schema/routes'
import { followServedCertificate } from '../domains/served-certificate'
import type { AppEnv } from '../env'
import { authenticateCallback, parseCallbackBody } from './authenticate'
import { keepObservation } from './observations'

export const CERTIFICATES_PATH = CALLBACK_PATHS.certificates
// D1 binds at most 100 parameters per statement.
const HOSTNAMES_PER_QUERY = 90

/**
 * The claim owner of each hostname among `wanted` that this node routes right now: its live http route belongs to
 * the claiming site, whose instance is on this node.
 */
export async function ownersRoutedToNode(
  database: Db,
  nodeId: string,
  wanted: string[],
): Promise<Map<string, string>> {
  const owners = new Map<string, string>()
  for (let i = 0; i < wanted.length; i += HOSTNAMES_PER_QUERY) {
    const rows = await database
      .select({ hostname: hostnameClaims.hostname, ownerId: hostnameClaims.ownerId })
      .from(hostnameClaims)
      .innerJoin(
        routes,
        and(
          eq(routes.hostname, hostnameClaims.hostname),
          eq(routes.siteId, hostnameClaims.siteId),
          eq(routes.kind, 'http'),
          ne(routes.status, 'removed'),
        ),
      )
      .innerJoin(sites, eq(sites.id, routes.siteId))
      .innerJoin(instances, eq(instances.id, sites.instanceId))
      .where(
        and(
          eq(instances.nodeId, nodeId),
          inArray(hostnameClaims.hostname, wanted.slice(i, i + HOSTNAMES_PER_QUERY)),
        ),
      )
    for (const row of rows) owners.set(row.hostname, row.ownerId)
  }
  return owners
}

/**
 * `POST /api/agent/v1/certificates`: a node reports the certificates it holds (authenticateCallback). Only
 * hostnames this node routes now are kept, each for the claim that holds the hostname at receipt; a domain also
 * takes a later notAfter as its certExpiresAt.
 */
export async function receiveCertificates(c: Context<AppEnv>): Promise<Response> {
  const { nodeId, raw, database } = await authenticateCallback(c, CERTIFICATES_PATH)
  const { observations } = parseCallbackBody(raw, CertificateReportSchema)
  const owners = await ownersRoutedToNode(database, nodeId, [...new Set(observations.map((o) => o.hostname))])
  const receivedAt = new Date()
  const accepted = observations.flatMap((o) => {
    const ownerId = owners.get(o.hostname)
    return ownerId ? [{ ownerId, o }] : []
  })
  const [first, ...rest] = accepted.flatMap(({ ownerId, o }) => [
    keepObservation(database, { ownerId, nodeId }, o, receivedAt),
    followServedCertificate(database, ownerId, o),
  ])
  if (first) await database.batch([first, ...rest])
  return c.json({ accepted: accepted.length, ignored: observations.length - accepted.length })
}
