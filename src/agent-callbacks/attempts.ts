import { eq, sql } from 'drizzle-orm'
import type { CertificateAttempt } from '../agent-contract/certificate-attempts'
import type { Db } from '../db/client'
import { certificateAttempts } from '../db/schema/custom-hostnames'
import type { ObservationOwner } from './observations'

export type AttemptRow = typeof certificateAttempts.$inferSelect

/**
 * The write that keeps a node's newest issuance outcome for the owner. Delivered again it changes nothing; an
 * older one arriving late is ignored, so a success is never undone by the failure before it. `at` counts only up
 * to `receivedAt`, so a node's clock cannot pin an outcome.
 */
export function keepAttempt(db: Db, owner: ObservationOwner, attempt: CertificateAttempt, receivedAt: Date) {
  const at = new Date(Math.min(Date.parse(attempt.at), receivedAt.getTime()))
  const { error } = attempt
  return db
    .insert(certificateAttempts)
    .values({
      ownerId: owner.ownerId,
      nodeId: owner.nodeId,
      hostname: attempt.hostname,
      at,
      errorKind: error?.kind ?? null,
      problemType: error?.problemType ?? null,
      detail: error?.detail ?? null,
      retryAfter: error?.retryAfter ? new Date(error.retryAfter) : null,
      nextAttemptAt: attempt.nextAttemptAt ? new Date(attempt.nextAttemptAt) : null,
      receivedAt,
    })
    .onConflictDoUpdate({
      target: [certificateAttempts.ownerId, certificateAttempts.nodeId],
      set: {
        hostname: sql`excluded.hostname`,
        at: sql`excluded.at`,
        errorKind: sql`excluded.error_kind`,
        problemType: sql`excluded.problem_type`,
        detail: sql`excluded.detail`,
        retryAfter: sql`excluded.retry_after`,
        nextAttemptAt: sql`excluded.next_attempt_at`,
        receivedAt: sql`excluded.received_at`,
      },
      setWhere: sql`excluded.at >= ${certificateAttempts.at}`,
    })
}

/** The write that deletes what nodes reported of an owner's attempts, for its removal batch. */
export function forgetAttempts(db: Db, ownerId: string) {
  return db.delete(certificateAttempts).where(eq(certificateAttempts.ownerId, ownerId))
}

/**
 * What `cert` answers of the newest attempt: the error in the CA's words while the last outcome is a failure,
 * and when Caddy tries again where it said so (a next attempt already past says nothing any more).
 */
export function attemptAnswer(row: AttemptRow | null, now = Date.now()) {
  if (!row?.errorKind) return {}
  const next = row.nextAttemptAt && row.nextAttemptAt.getTime() > now ? row.nextAttemptAt : null
  return {
    lastError: {
      at: row.at.toISOString(),
      kind: row.errorKind,
      ...(row.problemType ? { problemType: row.problemType } : {}),
      detail: row.detail ?? '',
      ...(row.retryAfter ? { retryAfter: row.retryAfter.toISOString() } : {}),
    },
    ...(next ? { nextAttemptAt: next.toISOString() } : {}),
  }
}
