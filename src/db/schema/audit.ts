import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'

export const auditLog = sqliteTable(
  'audit_log',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    action: text('action').notNull(),
    principalKind: text('principal_kind').notNull(),
    principalId: text('principal_id'),
    targetId: text('target_id'),
    outcome: text('outcome', { enum: ['success', 'failure'] }).notNull(),
    requestId: text('request_id').notNull(),
    detail: text('detail', { mode: 'json' }).$type<Record<string, unknown>>(),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [index('audit_action_idx').on(t.action, t.id), index('audit_target_idx').on(t.targetId, t.id)],
)
