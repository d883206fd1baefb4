import { and, eq, isNull, lt, or } from 'drizzle-orm'
import type { CertificateObservation } from '../agent-contract/v1'
import type { Db } from '../db/client'
import { domains } from '../db/schema/domains'

/**
 * The write that makes a domain follow the certificate its node serves, for the batch that keeps the node's
 * observation: a later notAfter (a renewal Caddy did on its own) moves certExpiresAt and the serial, which the
 * domain's cert probe judges. The caller passes only observations of the node that routes the hostname for the
 * claim's owner; an owner that is no domain (a custom hostname) matches no row.
 */
export function followServedCertificate(db: Db, ownerId: string, observation: CertificateObservation) {
  const notAfter = new Date(observation.notAfter)
  return db
    .update(domains)
    .set({ certExpiresAt: notAfter, certSerial: observation.serial, updatedAt: new Date() })
    .where(
      and(eq(domains.id, ownerId), or(isNull(domains.certExpiresAt), lt(domains.certExpiresAt, notAfter))),
    )
}
