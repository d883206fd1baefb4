import { and, eq } from 'drizzle-orm'
import { attemptAnswer } from '../agent-callbacks/attempts'
import { renewalWindowAnswer } from '../agent-callbacks/renewal-windows'
import type { Db } from '../db/client'
import { certificateAttempts, certificateObservations } from '../db/schema/custom-hostnames'
import { domains } from '../db/schema/domains'
import { instances, sites } from '../db/schema/fleet'

/**
 * What the node serving the domain's site reported: its newest issuance attempt and the certificate it serves.
 * Keyed by the domain's id alone, so it is read beside the domain's row, not after it.
 */
export async function nodeReports(db: Db, domainId: string) {
  const onNode = <T extends typeof certificateAttempts | typeof certificateObservations>(table: T) =>
    and(eq(table.ownerId, domains.id), eq(table.nodeId, instances.nodeId))
  const [found] = await db
    .select({ attempt: certificateAttempts, observation: certificateObservations })
    .from(domains)
    .innerJoin(sites, eq(sites.id, domains.siteId))
    .innerJoin(instances, eq(instances.id, sites.instanceId))
    .leftJoin(certificateAttempts, onNode(certificateAttempts))
    .leftJoin(certificateObservations, onNode(certificateObservations))
    .where(eq(domains.id, domainId))
    .limit(1)
  return { attempt: found?.attempt ?? null, observation: found?.observation ?? null }
}

/** `cert` of domains.get and check: the CA's renewal window and the newest attempt's error, where known. */
export const certOf = (reports: Awaited<ReturnType<typeof nodeReports>>) => ({
  ...renewalWindowAnswer(reports.observation),
  ...attemptAnswer(reports.attempt),
})
