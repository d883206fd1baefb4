import { type Principal, principalRef } from '../auth/principal'
import type { Db } from '../db/client'
import { auditLog } from '../db/schema/audit'

export interface AuditEntry {
  action: string
  principal: Principal
  requestId: string
  targetId?: string | null
  outcome?: 'success' | 'failure'
  detail?: Record<string, unknown>
}

/** The insert for one audit entry, to run in the same batch as the change it records. */
export function auditInsert(db: Db, entry: AuditEntry) {
  const ref = principalRef(entry.principal)
  return db.insert(auditLog).values({
    action: entry.action,
    principalKind: ref.kind,
    principalId: ref.id,
    targetId: entry.targetId ?? null,
    outcome: entry.outcome ?? 'success',
    requestId: entry.requestId,
    detail: entry.detail ?? null,
    createdAt: new Date(),
  })
}
