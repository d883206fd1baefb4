import { z } from '@hono/zod-openapi'
import { and, eq, getTableColumns, sql } from 'drizzle-orm'
import { commitGuarded, failUnless, nextUpdatedAt } from '../db/batch-guard'
import { changelogWebhookDeliveries, changelogWebhookTargets } from '../db/schema/changelog'
import { urlFor } from '../lib/mask-url'
import { assertOutboundUrl } from '../lib/outbound-url'
import { afterCursor, newestFirst, orderTerms, pageInput, rowsOfPage } from '../lib/paging'
import { HttpUrlSchema, IdInputSchema, IdSchema, RemovedSchema } from '../lib/schemas'
import { sealSecret } from '../lib/secrets'
import { procedure } from '../rpc/define'
import { conflict } from '../rpc/errors'
import { DeliveryRowSchema, WebhookTargetRowSchema } from './schemas'
import { toDeliveryRow } from './webhook-deliveries'
import { getTarget, type TargetRecord, toTargetRow } from './webhook-targets'

const SecretSchema = z.string().min(16, 'must be at least 16 characters').max(512)

export const webhookProcedures = {
  list: procedure({
    kind: 'query',
    permission: 'settings:view',
    summary:
      'List the changelog.webhooks targets, newest first; secrets are never returned, and URLs keep their userinfo and query only for settings:edit. Page with limit and cursor (the id of the last target you hold)',
    input: z.strictObject({ ...pageInput }),
    output: z.array(WebhookTargetRowSchema),
    async handler(input, ctx) {
      const list = {
        table: changelogWebhookTargets,
        id: changelogWebhookTargets.id,
        order: newestFirst(changelogWebhookTargets, changelogWebhookTargets.createdAt),
      }
      const targets = await ctx.db
        .select()
        .from(changelogWebhookTargets)
        .where(await afterCursor(ctx.db, list, input.cursor))
        .orderBy(...orderTerms(list.order))
        .limit(rowsOfPage(input.limit))
      return targets.map((target) => ({
        ...toTargetRow(target),
        url: urlFor(ctx.principal, 'settings:edit', target.url),
      }))
    },
  }),
  create: procedure({
    kind: 'mutation',
    permission: 'settings:edit',
    audit: 'changelog.webhook-create',
    summary: 'Add a publish webhook target; its secret is stored encrypted and never returned',
    input: z.strictObject({ url: HttpUrlSchema, secret: SecretSchema, enabled: z.boolean().optional() }),
    output: WebhookTargetRowSchema,
    async handler(input, ctx) {
      assertOutboundUrl(ctx.env, 'url', input.url)
      const now = new Date()
      const target: TargetRecord = {
        id: crypto.randomUUID(),
        url: input.url,
        secretSealed: await sealSecret(ctx.env, input.secret),
        enabled: input.enabled ?? true,
        disabledReason: null,
        createdAt: now,
        updatedAt: now,
      }
      await ctx.commit([ctx.db.insert(changelogWebhookTargets).values(target)], {
        targetId: target.id,
        detail: { url: target.url, enabled: target.enabled },
      })
      return toTargetRow(target)
    },
  }),
  update: procedure({
    kind: 'mutation',
    permission: 'settings:edit',
    audit: 'changelog.webhook-update',
    summary: 'Change a webhook target; a new secret replaces the stored one, enabling clears a 410 disable',
    input: z.strictObject({
      id: IdSchema,
      url: HttpUrlSchema.optional(),
      secret: SecretSchema.optional(),
      enabled: z.boolean().optional(),
    }),
    output: WebhookTargetRowSchema,
    errors: ['not_found', 'conflict'],
    async handler(input, ctx) {
      const target = await getTarget(ctx.db, input.id)
      if (input.url !== undefined) assertOutboundUrl(ctx.env, 'url', input.url)
      const changes = {
        ...(input.url === undefined ? {} : { url: input.url }),
        ...(input.secret === undefined ? {} : { secretSealed: await sealSecret(ctx.env, input.secret) }),
        ...(input.enabled === undefined ? {} : { enabled: input.enabled, disabledReason: null }),
        updatedAt: nextUpdatedAt(target.updatedAt, new Date()),
      } satisfies Partial<TargetRecord>
      const updated: TargetRecord = { ...target, ...changes }
      const asRead = and(
        eq(changelogWebhookTargets.id, target.id),
        eq(changelogWebhookTargets.updatedAt, target.updatedAt),
      )
      await commitGuarded(
        ctx.commit(
          [
            ctx.db.update(changelogWebhookTargets).set(changes).where(asRead),
            failUnless(ctx.db, sql`changes() = 1`),
          ],
          {
            targetId: target.id,
            detail: { url: updated.url, enabled: updated.enabled, secretChanged: input.secret !== undefined },
          },
        ),
        async () => {
          await getTarget(ctx.db, target.id)
          return conflict('the webhook target changed meanwhile; read it again and retry')
        },
      )
      return toTargetRow(updated)
    },
  }),
  remove: procedure({
    kind: 'mutation',
    permission: 'settings:edit',
    audit: 'changelog.webhook-remove',
    summary: 'Remove a webhook target and its delivery history; its queued deliveries are dropped',
    input: IdInputSchema,
    output: RemovedSchema,
    errors: ['not_found'],
    async handler(input, ctx) {
      const target = await getTarget(ctx.db, input.id)
      // The foreign key cascades the delete to the target's deliveries.
      await ctx.commit(
        [ctx.db.delete(changelogWebhookTargets).where(eq(changelogWebhookTargets.id, target.id))],
        {
          targetId: target.id,
          detail: { url: target.url },
        },
      )
      return { removed: true as const }
    },
  }),
  deliveries: procedure({
    kind: 'query',
    permission: 'settings:view',
    summary:
      'Publish webhook deliveries, newest first: status, attempts, last error, next attempt. Page with limit and cursor (the id of the last delivery you hold)',
    input: z.strictObject({
      targetId: IdSchema.optional(),
      releaseId: IdSchema.optional(),
      ...pageInput,
    }),
    output: z.array(DeliveryRowSchema),
    async handler(input, ctx) {
      const scope = and(
        input.targetId ? eq(changelogWebhookDeliveries.targetId, input.targetId) : undefined,
        input.releaseId ? eq(changelogWebhookDeliveries.releaseId, input.releaseId) : undefined,
      )
      const list = {
        table: changelogWebhookDeliveries,
        id: changelogWebhookDeliveries.id,
        order: newestFirst(changelogWebhookDeliveries, changelogWebhookDeliveries.createdAt),
        scope,
      }
      // Without the frozen bodies: the whole list is every delivery ever made, each body up to a release's size.
      const { body: _, ...shown } = getTableColumns(changelogWebhookDeliveries)
      const rows = await ctx.db
        .select(shown)
        .from(changelogWebhookDeliveries)
        .where(and(scope, await afterCursor(ctx.db, list, input.cursor)))
        .orderBy(...orderTerms(list.order))
        .limit(rowsOfPage(input.limit))
      return rows.map(toDeliveryRow)
    },
  }),
}
