import { z } from '@hono/zod-openapi'
import { and, desc, eq, lt, or } from 'drizzle-orm'
import { auditLog } from '../db/schema/audit'
import { maskUrlsIn } from '../lib/mask-url'
import { CursorSchema, contains, LogLimitSchema, NextCursorSchema, pageOf, SearchSchema } from '../lib/paging'
import { procedure } from '../rpc/define'
import { auditNames } from './names'

const AuditEntrySchema = z
  .object({
    id: z.number().int(),
    action: z.string(),
    principal: z.object({
      kind: z.string(),
      id: z.string().nullable(),
      name: z
        .string()
        .nullable()
        .openapi({ description: "The user's email or the token's name; null when unknown" }),
    }),
    targetId: z.string().nullable(),
    targetName: z.string().nullable().openapi({
      description:
        "The target's name (a node's or probe's name, a domain's hostname, a user's email); null when unknown",
    }),
    outcome: z.enum(['success', 'failure']),
    requestId: z.string(),
    detail: z.record(z.string(), z.unknown()).nullable(),
    createdAt: z.iso.datetime(),
  })
  .openapi('AuditEntry')

export const auditProcedures = {
  list: procedure({
    kind: 'query',
    permission: 'audit:view',
    summary:
      'Page through the audit log, newest first, optionally of one action or target or matching a search; pass nextCursor back as cursor for the next page',
    input: z.strictObject({
      action: z.string().min(1).max(100).optional(),
      targetId: z.string().min(1).max(256).optional(),
      search: SearchSchema.optional().describe(
        'Only entries whose action, actor id or target id contains this text (case-insensitive)',
      ),
      limit: LogLimitSchema,
      cursor: CursorSchema.max(20).regex(/^\d+$/, 'must be a nextCursor from an earlier page').optional(),
    }),
    output: z.object({ entries: z.array(AuditEntrySchema), nextCursor: NextCursorSchema }),
    async handler(input, ctx) {
      const rows = await ctx.db
        .select()
        .from(auditLog)
        .where(
          and(
            input.action ? eq(auditLog.action, input.action) : undefined,
            input.targetId ? eq(auditLog.targetId, input.targetId) : undefined,
            input.search
              ? or(
                  contains(auditLog.action, input.search),
                  contains(auditLog.principalId, input.search),
                  contains(auditLog.targetId, input.search),
                )
              : undefined,
            input.cursor ? lt(auditLog.id, Number(input.cursor)) : undefined,
          ),
        )
        .orderBy(desc(auditLog.id))
        .limit(input.limit + 1)
      const page = pageOf(rows, input.limit, (row) => row.id)
      const names = await auditNames(ctx.db, page.items)
      return {
        entries: page.items.map((row, index) => ({
          id: row.id,
          action: row.action,
          principal: { kind: row.principalKind, id: row.principalId, name: names[index]?.actorName ?? null },
          targetId: row.targetId,
          targetName: names[index]?.targetName ?? null,
          outcome: row.outcome,
          requestId: row.requestId,
          // Entries written before URLs were masked on the way in are masked on the way out.
          detail: row.detail && maskUrlsIn(row.detail),
          createdAt: row.createdAt.toISOString(),
        })),
        nextCursor: page.nextCursor,
      }
    },
  }),
}
