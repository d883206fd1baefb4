import { sql } from 'drizzle-orm'
import type { CertificateObservation } from '../agent-contract/v1'
import type { Db } from '../db/client'
import { certificateObservations } from '../db/schema/custom-hostnames'

/** The write that keeps a node's certificate observation: the newest per hostname wins, a late older one is ignored. */
export function keepObservation(db: Db, nodeId: string, o: CertificateObservation, now: Date) {
  return db
    .insert(certificateObservations)
    .values({
      hostname: o.hostname,
      nodeId,
      notAfter: new Date(o.notAfter),
      serial: o.serial,
      issuer: o.issuer,
      observedAt: new Date(o.observedAt),
      updatedAt: now,
    })
    .onConflictDoUpdate({
      target: certificateObservations.hostname,
      set: {
        nodeId,
        notAfter: sql`excluded.not_after`,
        serial: sql`excluded.serial`,
        issuer: sql`excluded.issuer`,
        observedAt: sql`excluded.observed_at`,
        updatedAt: now,
      },
      setWhere: sql`excluded.observed_at >= ${certificateObservations.observedAt}`,
    })
}
