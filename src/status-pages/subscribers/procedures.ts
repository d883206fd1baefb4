import { z } from '@hono/zod-openapi'
import { and, count, eq, sql } from 'drizzle-orm'
import { commitGuarded, failUnless } from '../../db/batch-guard'
import { statusPageEmailSubscriptions, statusPageWebhooks } from '../../db/schema/status-page-subscribers'
import { urlFor } from '../../lib/mask-url'
import { assertOutboundUrl } from '../../lib/outbound-url'
import {
  afterCursor,
  NextCursorSchema,
  newestFirst,
  orderTerms,
  pageInput,
  pageOf,
  rowsOfPageAndOne,
} from '../../lib/paging'
import { HttpUrlSchema, IdInputSchema, IdSchema, RemovedSchema } from '../../lib/schemas'
import { sealSecret } from '../../lib/secrets'
import { procedure } from '../../rpc/define'
import { notFound } from '../../rpc/errors'
import { getStatusPageRecord } from '../rows'

const SecretSchema = z.string().min(16, 'must be at least 16 characters').max(512)

const StatusPageWebhookSchema = z
  .object({
    id: z.string(),
    statusPageId: z.string(),
    url: z.string().describe('Userinfo, query and fragment masked unless the caller holds probes:manage'),
    hasSecret: z.literal(true).describe('Every delivery is signed with it; it is never returned'),
    createdAt: z.iso.datetime(),
  })
  .openapi('StatusPageWebhook')

type WebhookRecord = typeof statusPageWebhooks.$inferSelect

const toWebhook = (row: WebhookRecord, url: string) => ({
  id: row.id,
  statusPageId: row.statusPageId,
  url,
  hasSecret: true as const,
  createdAt: row.createdAt.toISOString(),
})

const StatusPageIdInputSchema = z.strictObject({ statusPageId: IdSchema })

/** A page's webhook subscribers, and how many addresses follow it (never which). */
export const statusPageSubscriberProcedures = {
  webhooks: {
    add: procedure({
      kind: 'mutation',
      permission: 'probes:manage',
      audit: 'status-page.webhook-add',
      summary:
        'Add a webhook to a status page: each incident update is POSTed to it, signed like every webhook here (x-service-timestamp, x-service-signature); the secret is stored encrypted and never returned',
      input: z.strictObject({ statusPageId: IdSchema, url: HttpUrlSchema, secret: SecretSchema }),
      output: StatusPageWebhookSchema,
      errors: ['not_found'],
      async handler(input, ctx) {
        assertOutboundUrl(ctx.env, 'url', input.url)
        const page = await getStatusPageRecord(ctx.db, input.statusPageId)
        const row: WebhookRecord = {
          id: crypto.randomUUID(),
          statusPageId: page.id,
          url: input.url,
          secretSealed: await sealSecret(ctx.env, input.secret),
          origin: ctx.origin,
          createdAt: new Date(),
        }
        // The foreign key refuses a page removed since the read (a conflict, like any such race).
        await ctx.commit([ctx.db.insert(statusPageWebhooks).values(row)], {
          targetId: row.id,
          detail: { statusPageId: page.id, url: row.url },
        })
        return toWebhook(row, row.url)
      },
    }),
    list: procedure({
      kind: 'query',
      permission: 'probes:view',
      summary:
        'A status page\u2019s webhooks, newest first; pass nextCursor back as cursor for the next page (null on the last)',
      input: z.strictObject({ statusPageId: IdSchema, ...pageInput }),
      output: z.object({ webhooks: z.array(StatusPageWebhookSchema), nextCursor: NextCursorSchema }),
      async handler(input, ctx) {
        const scope = eq(statusPageWebhooks.statusPageId, input.statusPageId)
        const list = {
          table: statusPageWebhooks,
          id: statusPageWebhooks.id,
          order: newestFirst(statusPageWebhooks, statusPageWebhooks.createdAt),
          scope,
        }
        const rows = await ctx.db
          .select()
          .from(statusPageWebhooks)
          .where(and(scope, await afterCursor(ctx.db, list, input.cursor)))
          .orderBy(...orderTerms(list.order))
          .limit(rowsOfPageAndOne(input.limit))
        const page = pageOf(rows, input.limit, (row) => row.id)
        return {
          webhooks: page.items.map((row) => toWebhook(row, urlFor(ctx.principal, 'probes:manage', row.url))),
          nextCursor: page.nextCursor,
        }
      },
    }),
    remove: procedure({
      kind: 'mutation',
      permission: 'probes:manage',
      audit: 'status-page.webhook-remove',
      summary: 'Remove a status page\u2019s webhook; deliveries still queued for it are skipped',
      input: IdInputSchema,
      output: RemovedSchema,
      errors: ['not_found'],
      async handler(input, ctx) {
        const [row] = await ctx.db
          .select()
          .from(statusPageWebhooks)
          .where(eq(statusPageWebhooks.id, input.id))
          .limit(1)
        if (!row) throw notFound(`status page webhook ${input.id}`)
        await commitGuarded(
          ctx.commit(
            [
              ctx.db.delete(statusPageWebhooks).where(eq(statusPageWebhooks.id, row.id)),
              failUnless(ctx.db, sql`changes() = 1`, 'gone'),
            ],
            { targetId: row.id, detail: { statusPageId: row.statusPageId, url: row.url } },
          ),
          () => notFound(`status page webhook ${row.id}`),
        )
        return { removed: true as const }
      },
    }),
  },
  subscriptions: {
    count: procedure({
      kind: 'query',
      permission: 'probes:view',
      summary:
        'How many addresses follow a status page by mail: confirmed (they get incident mail) and pending (a confirmation link is out). The addresses themselves are never shown',
      input: StatusPageIdInputSchema,
      output: z
        .object({ confirmed: z.number().int(), pending: z.number().int() })
        .openapi('StatusPageSubscriptionCount'),
      errors: ['not_found'],
      async handler(input, ctx) {
        await getStatusPageRecord(ctx.db, input.statusPageId)
        const rows = await ctx.db
          .select({ state: statusPageEmailSubscriptions.state, n: count() })
          .from(statusPageEmailSubscriptions)
          .where(eq(statusPageEmailSubscriptions.statusPageId, input.statusPageId))
          .groupBy(statusPageEmailSubscriptions.state)
        const of = (state: string) => rows.find((row) => row.state === state)?.n ?? 0
        return { confirmed: of('confirmed'), pending: of('pending') }
      },
    }),
  },
}
