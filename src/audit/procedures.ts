import { z } from '@hono/zod-openapi'
import { and, desc, eq, lt } from 'drizzle-orm'
import { auditLog } from '../db/schema/audit'
import { maskUrlsIn } from '../lib/mask-url'
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
    summary: 'Page through the audit log, newest first; pass nextCursor back as cursor for the next page',
    input: z.strictObject({
      action: z.string().min(1).max(100).optional(),
      targetId: z.string().min(1).max(256).optional(),
      limit: z.number().int().min(1).max(200).default(50),
      cursor: z.string().max(20).regex(/^\d+$/, 'must be a nextCursor from an earlier page').optional(),
    }),
    output: z.object({ entries: z.array(AuditEntrySchema), nextCursor: z.string().nullable() }),
    async handler(input, ctx) {
      const rows = await ctx.db
        .select()
        .from(auditLog)
        .where(
          and(
            input.action ? eq(auditLog.action, input.action) : undefined,
            input.targetId ? eq(auditLog.targetId, input.targetId) : undefined,
            input.cursor ? lt(auditLog.id, Number(input.cursor)) : undefined,
          ),
        )
        .orderBy(desc(auditLog.id))
        .limit(input.limit + 1)
      const page = rows.slice(0, input.limit)
      const last = page[page.length - 1]
      const names = await auditNames(ctx.db, page)
      return {
        entries: page.map((row, index) => ({
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
        nextCursor: rows.length > input.limit && last ? String(last.id) : null,
      }
    },
  }),
}
