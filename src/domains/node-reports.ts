import { attemptAnswer, attemptOnSiteNode } from '../agent-callbacks/attempts'
import { observationOnSiteNode, renewalWindowAnswer } from '../agent-callbacks/renewal-windows'
import type { Db } from '../db/client'
import type { DomainRecord } from './rows'

/** What the node serving the domain's site reported: its newest issuance attempt and the certificate it serves. */
export async function nodeReports(db: Db, row: Pick<DomainRecord, 'id' | 'siteId'>) {
  const [attempt, observation] = await Promise.all([
    attemptOnSiteNode(db, row.id, row.siteId),
    observationOnSiteNode(db, row.id, row.siteId),
  ])
  return { attempt, observation }
}

/** `cert` of domains.get and check: the CA's renewal window and the newest attempt's error, where known. */
export const certOf = (reports: Awaited<ReturnType<typeof nodeReports>>) => ({
  ...renewalWindowAnswer(reports.observation),
  ...attemptAnswer(reports.attempt),
})
