import { eq, sql } from 'drizzle-orm'
import type { AnySQLiteColumn } from 'drizzle-orm/sqlite-core'
import type { CertificateObservation } from '../agent-contract/v1'
import type { Db } from '../db/client'
import { certificateObservations } from '../db/schema/custom-hostnames'

/** Whose observation it is: the claim owner (custom-hostname row or domain) and the node that made it. */
export interface ObservationOwner {
  ownerId: string
  nodeId: string
}

/**
 * The write that keeps a node's certificate observation for the owner: the newest wins, a late older one is
 * ignored. The agent's `observedAt` counts only up to `receivedAt`, so a node's clock cannot pin a future time.
 * The renewal window belongs to its serial: another serial starts without one.
 */
export function keepObservation(
  db: Db,
  owner: ObservationOwner,
  o: CertificateObservation,
  receivedAt: Date,
) {
  const observedAt = new Date(Math.min(Date.parse(o.observedAt), receivedAt.getTime()))
  return db
    .insert(certificateObservations)
    .values({
      ownerId: owner.ownerId,
      nodeId: owner.nodeId,
      hostname: o.hostname,
      notAfter: new Date(o.notAfter),
      serial: o.serial,
      issuer: o.issuer,
      observedAt,
      receivedAt,
    })
    .onConflictDoUpdate({
      target: [certificateObservations.ownerId, certificateObservations.nodeId],
      set: {
        hostname: sql`excluded.hostname`,
        notAfter: sql`excluded.not_after`,
        serial: sql`excluded.serial`,
        issuer: sql`excluded.issuer`,
        observedAt: sql`excluded.observed_at`,
        receivedAt: sql`excluded.received_at`,
        renewalWindowStart: sameSerialOrNull(certificateObservations.renewalWindowStart),
        renewalWindowEnd: sameSerialOrNull(certificateObservations.renewalWindowEnd),
        renewalExplanationUrl: sameSerialOrNull(certificateObservations.renewalExplanationUrl),
      },
      setWhere: sql`excluded.observed_at >= ${certificateObservations.observedAt}`,
    })
}

const sameSerialOrNull = (column: AnySQLiteColumn) =>
  sql`case when excluded.serial = ${certificateObservations.serial} then ${column} else null end`

/** The write that deletes what nodes reported for an owner (a custom-hostname row or a domain), for its batch. */
export function forgetObservations(db: Db, ownerId: string) {
  return db.delete(certificateObservations).where(eq(certificateObservations.ownerId, ownerId))
}
