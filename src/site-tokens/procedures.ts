import { z } from '@hono/zod-openapi'
import { and, eq, isNotNull, isNull, sql } from 'drizzle-orm'
import { SITE_TOKEN_PREFIX } from '../auth/authenticate'
import { isPermission } from '../auth/permissions'
import { failUnless, isGuardFailure } from '../db/batch-guard'
import { apiTokens } from '../db/schema/auth'
import { getSite } from '../fleet/rows'
import { randomSecret } from '../lib/encoding'
import { sha256Hex } from '../lib/hash'
import { afterCursor, newestFirst, orderTerms, pageInput, rowsOfPage } from '../lib/paging'
import { IdInputSchema } from '../lib/schemas'
import { procedure } from '../rpc/define'
import { forbidden, invalid, notFound } from '../rpc/errors'

export const SITE_TOKEN_PERMISSIONS = ['custom-hostnames:view', 'custom-hostnames:manage'] as const
const SiteTokenPermissionSchema = z.enum(SITE_TOKEN_PERMISSIONS)

const SiteTokenRowSchema = z
  .object({
    id: z.string(),
    siteId: z.string(),
    name: z.string(),
    permissions: z.array(SiteTokenPermissionSchema),
    expiresAt: z.iso.datetime().nullable(),
    revokedAt: z.iso.datetime().nullable(),
    createdAt: z.iso.datetime(),
  })
  .openapi('SiteTokenRow')

type TokenRecord = typeof apiTokens.$inferSelect

function toSiteTokenRow(row: TokenRecord & { siteId: string }): z.infer<typeof SiteTokenRowSchema> {
  return {
    id: row.id,
    siteId: row.siteId,
    name: row.name,
    permissions: row.permissions
      .filter(isPermission)
      .filter((p) => p.startsWith('custom-hostnames:')) as z.infer<typeof SiteTokenPermissionSchema>[],
    expiresAt: row.expiresAt?.toISOString() ?? null,
    revokedAt: row.revokedAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
  }
}

/** Site-bound `spat_` tokens: what a SaaS app puts in its environment to call the custom-hostnames seam. */
export const siteTokensProcedures = {
  create: procedure({
    kind: 'mutation',
    permission: 'custom-hostnames:manage',
    audit: 'site-token.create',
    summary: 'Mint a site-bound token (spat_) for the custom-hostnames calls of one site; shown only here',
    input: z.strictObject({
      siteId: z.uuid(),
      name: z.string().trim().min(1).max(100),
      permissions: z.array(SiteTokenPermissionSchema).min(1).max(2).optional(),
      expiresAt: z.iso.datetime({ offset: true }).optional(),
    }),
    output: SiteTokenRowSchema.omit({ revokedAt: true })
      .extend({ token: z.string() })
      .openapi('NewSiteToken'),
    errors: ['not_found', 'forbidden'],
    async handler(input, ctx) {
      const { principal } = ctx
      if (principal.kind !== 'session' && principal.kind !== 'token')
        throw forbidden('a site token cannot mint tokens; sign in or use an API token')
      const site = await getSite(ctx.db, input.siteId)
      const expiresAt = input.expiresAt ? new Date(input.expiresAt) : null
      if (expiresAt && expiresAt.getTime() <= Date.now()) throw invalid('expiresAt', 'must be in the future')
      const permissions = [...new Set(input.permissions ?? SITE_TOKEN_PERMISSIONS)]
      const beyond = permissions.filter((p) => !principal.permissions.has(p))
      if (beyond.length > 0)
        throw forbidden(`a token cannot grant permissions its creator lacks: ${beyond.join(', ')}`)
      const token = `${SITE_TOKEN_PREFIX}${randomSecret()}`
      const row = {
        id: crypto.randomUUID(),
        name: input.name,
        tokenHash: await sha256Hex(token),
        permissions,
        createdBy: principal.userId,
        siteId: site.id,
        // Like an API token minted by a token, a site token dies with the token that minted it.
        ancestorIds: principal.kind === 'token' ? [...principal.ancestorIds, principal.tokenId] : [],
        expiresAt,
        revokedAt: null,
        createdAt: new Date(),
      }
      await ctx.commit([ctx.db.insert(apiTokens).values(row)], {
        targetId: row.id,
        detail: { siteId: site.id, name: row.name, permissions },
      })
      const { revokedAt: _revokedAt, ...shown } = toSiteTokenRow(row)
      return { ...shown, token }
    },
  }),
  list: procedure({
    kind: 'query',
    permission: 'custom-hostnames:view',
    summary:
      "A site's tokens, newest first; the token itself is never shown again. Page with limit and cursor (the id of the last token you hold)",
    input: z.strictObject({ siteId: z.uuid(), ...pageInput }),
    output: z.array(SiteTokenRowSchema),
    errors: ['not_found'],
    async handler(input, ctx) {
      await getSite(ctx.db, input.siteId)
      const scope = eq(apiTokens.siteId, input.siteId)
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
      return rows.map((row) => toSiteTokenRow({ ...row, siteId: input.siteId }))
    },
  }),
  revoke: procedure({
    kind: 'mutation',
    permission: 'custom-hostnames:manage',
    audit: 'site-token.revoke',
    summary: 'Revoke a site token; it answers 401 from then on. Revoking a revoked token records nothing',
    input: IdInputSchema,
    output: z.object({ revoked: z.literal(true) }),
    errors: ['not_found'],
    async handler(input, ctx) {
      const bound = and(eq(apiTokens.id, input.id), isNotNull(apiTokens.siteId))
      try {
        await ctx.commit(
          [
            ctx.db
              .update(apiTokens)
              .set({ revokedAt: new Date() })
              .where(and(bound, isNull(apiTokens.revokedAt))),
            // changes() counts the rows the update just before changed: none when already revoked (or unknown).
            failUnless(ctx.db, sql`changes() = 1`),
          ],
          { targetId: input.id },
        )
      } catch (error) {
        if (!isGuardFailure(error)) throw error
        const [row] = await ctx.db.select({ id: apiTokens.id }).from(apiTokens).where(bound).limit(1)
        if (!row) throw notFound(`site token ${input.id}`)
      }
      return { revoked: true as const }
    },
  }),
}
