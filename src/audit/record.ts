import { type Principal, principalRef } from '../auth/principal'
import type { Db } from '../db/client'
import { auditLog } from '../db/schema/audit'
import { maskUrlsIn } from '../lib/mask-url'

export interface AuditEntry {
  action: string
  principal: Principal
  requestId: string
  targetId?: string | null
  outcome?: 'success' | 'failure'
  detail?: Record<string, unknown>
}

/**
 * The insert for one audit entry, to run in the same batch as the change it records. URLs in the detail keep no
 * userinfo, query or fragment: webhook receivers often take their credential there.
 */
export function auditInsert(db: Db, entry: AuditEntry) {
  const ref = principalRef(entry.principal)
  return db.insert(auditLog).values({
    action: entry.action,
    principalKind: ref.kind,
    principalId: ref.id,
    targetId: entry.targetId ?? null,
    outcome: entry.outcome ?? 'success',
    requestId: entry.requestId,
    detail: entry.detail ? maskUrlsIn(entry.detail) : null,
    createdAt: new Date(),
  })
}

/** The insert for an audit entry of the panel's own doing (a cron task), `actor` naming the task. */
export function systemAuditInsert(db: Db, entry: Omit<AuditEntry, 'principal'> & { actor: string }) {
  return db.insert(auditLog).values({
    action: entry.action,
    principalKind: 'system',
    principalId: entry.actor,
    targetId: entry.targetId ?? null,
    outcome: entry.outcome ?? 'success',
    requestId: entry.requestId,
    detail: entry.detail ? maskUrlsIn(entry.detail) : null,
    createdAt: new Date(),
  })
}
