import { z } from '@hono/zod-openapi'
import { and, eq, isNull, sql } from 'drizzle-orm'
import { TOKEN_PREFIX } from '../auth/authenticate'
import { isPermission, PERMISSIONS } from '../auth/permissions'
import { failUnless, isGuardFailure } from '../db/batch-guard'
import { apiTokens } from '../db/schema/auth'
import { randomSecret } from '../lib/encoding'
import { sha256Hex } from '../lib/hash'
import { afterCursor, newestFirst, orderTerms, pageInput, rowsOfPage } from '../lib/paging'
import { IdInputSchema, NameSchema } from '../lib/schemas'
import { procedure } from '../rpc/define'
import { forbidden, invalid, notFound } from '../rpc/errors'

// A chain of tokens minting tokens is checked link by link on every request: keep it short.
const MAX_GENERATIONS = 8

const PermissionSchema = z.enum(PERMISSIONS).openapi('Permission')

const TokenRowSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    permissions: z.array(PermissionSchema),
    createdBy: z.string(),
    parentId: z
      .string()
      .nullable()
      .openapi({ description: 'The token that minted this one; null when a session did' }),
    expiresAt: z.iso.datetime().nullable(),
    revokedAt: z.iso.datetime().nullable(),
    createdAt: z.iso.datetime(),
  })
  .openapi('TokenRow')

type TokenRecord = typeof apiTokens.$inferSelect

function toTokenRow(row: TokenRecord): z.infer<typeof TokenRowSchema> {
  return {
    id: row.id,
    name: row.name,
    permissions: row.permissions.filter(isPermission),
    createdBy: row.createdBy,
    parentId: row.ancestorIds.at(-1) ?? null,
    expiresAt: row.expiresAt?.toISOString() ?? null,
    revokedAt: row.revokedAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
  }
}

export const tokensProcedures = {
  create: procedure({
    kind: 'mutation',
    permission: 'tokens:manage',
    audit: 'token.create',
    summary:
      'Create an API token; the token is shown only in this response. A token minted by a token stops when any token above it is revoked or expires',
    input: z.strictObject({
      name: NameSchema,
      permissions: z.array(PermissionSchema).min(1),
      expiresAt: z.iso.datetime({ offset: true }).optional(),
    }),
    output: TokenRowSchema.omit({ createdBy: true, parentId: true, revokedAt: true })
      .extend({ token: z.string() })
      .openapi('NewToken'),
    errors: ['forbidden'],
    async handler(input, ctx) {
      const { principal } = ctx
      if (principal.kind !== 'session' && principal.kind !== 'token')
        throw forbidden('only an admin creates tokens')
      const expiresAt = input.expiresAt ? new Date(input.expiresAt) : null
      if (expiresAt && expiresAt.getTime() <= Date.now()) throw invalid('expiresAt', 'must be in the future')
      const beyond = input.permissions.filter((p) => !principal.permissions.has(p))
      if (beyond.length > 0)
        throw forbidden(`a token cannot grant permissions its creator lacks: ${beyond.join(', ')}`)
      const ancestorIds = principal.kind === 'token' ? [...principal.ancestorIds, principal.tokenId] : []
      if (ancestorIds.length >= MAX_GENERATIONS)
        throw forbidden(`tokens minted by tokens go at most ${MAX_GENERATIONS} generations deep`)
      const token = `${TOKEN_PREFIX}${randomSecret()}`
      const row: TokenRecord = {
        id: crypto.randomUUID(),
        name: input.name,
        tokenHash: await sha256Hex(token),
        permissions: [...new Set(input.permissions)],
        createdBy: principal.userId,
        siteId: null,
        ancestorIds,
        expiresAt,
        revokedAt: null,
        createdAt: new Date(),
      }
      await ctx.commit([ctx.db.insert(apiTokens).values(row)], {
        targetId: row.id,
        detail: { name: row.name, permissions: row.permissions, parentId: ancestorIds.at(-1) ?? null },
      })
      const { createdBy: _createdBy, parentId: _parentId, revokedAt: _revokedAt, ...shown } = toTokenRow(row)
      return { ...shown, token }
    },
  }),
  list: procedure({
    kind: 'query',
    permission: 'tokens:manage',
    summary:
      'List API tokens, newest first; the token itself is never shown again. Page with limit and cursor (the id of the last token you hold)',
    input: z.strictObject({ ...pageInput }),
    output: z.array(TokenRowSchema),
    async handler(input, ctx) {
      const scope = isNull(apiTokens.siteId)
      const list = {
        table: apiTokens,
        id: apiTokens.id,
        order: newestFirst(apiTokens, apiTokens.createdAt),
        scope,
      }
      const rows = await ctx.db
        .select()
        .from(apiTokens)
        .where(and(scope, await afterCursor(ctx.db, list, input.cursor)))
        .orderBy(...orderTerms(list.order))
        .limit(rowsOfPage(input.limit))
      return rows.map(toTokenRow)
    },
  }),
  revoke: procedure({
    kind: 'mutation',
    permission: 'tokens:manage',
    audit: 'token.revoke',
    summary:
      'Revoke an API token and every token minted under it; they answer 401 from then on. Revoking a revoked token answers the same and records nothing',
    input: IdInputSchema,
    output: z.object({ revoked: z.literal(true) }),
    errors: ['not_found'],
    async handler(input, ctx) {
      const now = new Date()
      const personal = and(eq(apiTokens.id, input.id), isNull(apiTokens.siteId))
      try {
        await ctx.commit(
          [
            ctx.db
              .update(apiTokens)
              .set({ revokedAt: now })
              .where(and(personal, isNull(apiTokens.revokedAt))),
            // changes() counts the rows the update just before changed: none when already revoked (or unknown).
            failUnless(ctx.db, sql`changes() = 1`),
            ctx.db
              .update(apiTokens)
              .set({ revokedAt: now })
              .where(
                and(
                  isNull(apiTokens.revokedAt),
                  sql`exists (select 1 from json_each(${apiTokens.ancestorIds}) where value = ${input.id})`,
                ),
              ),
          ],
          { targetId: input.id },
        )
      } catch (error) {
        if (!isGuardFailure(error)) throw error
        const [row] = await ctx.db.select({ id: apiTokens.id }).from(apiTokens).where(personal).limit(1)
        if (!row) throw notFound(`token ${input.id}`)
      }
      return { revoked: true as const }
    },
  }),
}
