import { z } from '@hono/zod-openapi'
import { and, eq, inArray, sql } from 'drizzle-orm'
import { commitGuarded, failUnless } from '../db/batch-guard'
import { changelogReleases, changelogWebhookDeliveries } from '../db/schema/changelog'
import { pageInput } from '../lib/paging'
import { IdInputSchema, IdSchema, RemovedSchema } from '../lib/schemas'
import { procedure } from '../rpc/define'
import { conflict } from '../rpc/errors'
import { invalidateFeed } from './feed-cache'
import { pageReleases } from './release-list'
import {
  assertLocal,
  assertVersionFree,
  authorOf,
  editRelease,
  getRelease,
  lostRace,
  publishRelease,
  type ReleaseRecord,
  releaseRow,
  toReleaseRow,
  translationsOf,
} from './releases'
import {
  DateSchema,
  ItemInputSchema,
  MAX_ITEMS,
  PhaseSchema,
  ReleaseRowSchema,
  SeveritySchema,
  SummarySchema,
  TitleSchema,
  VersionSchema,
} from './schemas'
import { translationProcedures } from './translation-procedures'
import { deliveryIdsOf, enqueueDeliveries, PENDING_DELIVERY } from './webhook-deliveries'

const ReleaseFieldsSchema = z.strictObject({
  version: VersionSchema,
  title: TitleSchema,
  severity: SeveritySchema,
  summary: SummarySchema.nullable().optional(),
  items: z.array(ItemInputSchema).max(MAX_ITEMS).optional(),
  phase: PhaseSchema.nullable().optional(),
})

function changedFields(input: Record<string, unknown>): string[] {
  return Object.keys(input).filter((key) => key !== 'id' && input[key] !== undefined)
}

export const releaseProcedures = {
  create: procedure({
    kind: 'mutation',
    permission: 'changelog:manage',
    audit: 'changelog.release-create',
    summary: 'Create a draft release; drafts never appear in the feed',
    input: ReleaseFieldsSchema,
    output: ReleaseRowSchema,
    errors: ['conflict'],
    async handler(input, ctx) {
      await assertVersionFree(ctx.db, input.version)
      const now = new Date()
      const release: ReleaseRecord = {
        id: crypto.randomUUID(),
        version: input.version,
        title: input.title,
        severity: input.severity,
        summary: input.summary ?? null,
        items: input.items ?? [],
        phase: input.phase ?? null,
        source: 'local',
        date: null,
        publishedAt: null,
        createdBy: authorOf(ctx.principal),
        createdAt: now,
        updatedAt: now,
      }
      await ctx.commit([ctx.db.insert(changelogReleases).values(release)], {
        targetId: release.id,
        detail: { version: release.version },
      })
      return toReleaseRow(release, [])
    },
  }),
  update: procedure({
    kind: 'mutation',
    permission: 'changelog:manage',
    audit: 'changelog.release-update',
    summary: 'Change a draft or published release; a published edit shows in the feed at once',
    input: ReleaseFieldsSchema.partial().extend({ id: IdSchema }),
    output: ReleaseRowSchema,
    errors: ['not_found', 'conflict'],
    async handler(input, ctx) {
      const release = await getRelease(ctx.db, input.id)
      assertLocal(release)
      const change = await editRelease(ctx.db, release, input, new Date())
      await commitGuarded(
        ctx.commit(change.writes, {
          targetId: release.id,
          detail: {
            version: change.release.version,
            fields: changedFields(input),
            published: release.date !== null,
          },
        }),
        () => lostRace(ctx.db, release),
      )
      invalidateFeed()
      return toReleaseRow(change.release, change.translations)
    },
  }),
  publish: procedure({
    kind: 'mutation',
    permission: 'changelog:manage',
    audit: 'changelog.release-publish',
    summary:
      'Publish a draft with a date (default today, UTC): it joins the feed at once and each enabled webhook target is notified',
    input: z.strictObject({ id: IdSchema, date: DateSchema.optional() }),
    output: ReleaseRowSchema,
    errors: ['not_found', 'conflict'],
    async handler(input, ctx) {
      const release = await getRelease(ctx.db, input.id)
      assertLocal(release)
      if (release.date !== null) throw conflict(`release ${release.version} is already published`)
      const now = new Date()
      const change = publishRelease(
        ctx.db,
        release,
        await translationsOf(ctx.db, release.id),
        input.date,
        now,
      )
      await commitGuarded(
        ctx.commit(change.writes, {
          targetId: release.id,
          detail: { version: release.version, date: change.release.date },
        }),
        () => lostRace(ctx.db, release),
      )
      invalidateFeed()
      await enqueueDeliveries(ctx.env, ctx.db, await deliveryIdsOf(ctx.db, release.id, now))
      return toReleaseRow(change.release, change.translations)
    },
  }),
  unpublish: procedure({
    kind: 'mutation',
    permission: 'changelog:manage',
    audit: 'changelog.release-unpublish',
    summary:
      'Turn a published release back into a draft; it leaves the feed and undelivered webhooks are skipped',
    input: IdInputSchema,
    output: ReleaseRowSchema,
    errors: ['not_found', 'conflict'],
    async handler(input, ctx) {
      const release = await getRelease(ctx.db, input.id)
      assertLocal(release)
      if (release.date === null) throw conflict(`release ${release.version} is not published`)
      const now = new Date()
      // A concurrent edit may have advanced updatedAt past this read: step past whatever is stored.
      const changes = {
        date: null,
        publishedAt: null,
        updatedAt: sql`max(${changelogReleases.updatedAt} + 1, ${now.getTime()})`,
      }
      const stillPublished = and(
        eq(changelogReleases.id, release.id),
        eq(changelogReleases.date, release.date),
      )
      await commitGuarded(
        ctx.commit(
          [
            ctx.db.update(changelogReleases).set(changes).where(stillPublished),
            failUnless(ctx.db, sql`changes() = 1`),
            ctx.db
              .update(changelogWebhookDeliveries)
              .set({
                status: 'skipped',
                lastError: 'the release was unpublished before delivery',
                nextAttemptAt: null,
                updatedAt: now,
              })
              .where(
                and(
                  eq(changelogWebhookDeliveries.releaseId, release.id),
                  inArray(changelogWebhookDeliveries.status, [...PENDING_DELIVERY]),
                ),
              ),
          ],
          { targetId: release.id, detail: { version: release.version, date: release.date } },
        ),
        () => lostRace(ctx.db, release),
      )
      invalidateFeed()
      return releaseRow(ctx.db, await getRelease(ctx.db, release.id))
    },
  }),
  remove: procedure({
    kind: 'mutation',
    permission: 'changelog:manage',
    audit: 'changelog.release-remove',
    summary: 'Delete a draft; a published release must be unpublished first',
    input: IdInputSchema,
    output: RemovedSchema,
    errors: ['not_found', 'conflict'],
    async handler(input, ctx) {
      const release = await getRelease(ctx.db, input.id)
      assertLocal(release)
      if (release.date !== null) throw conflict(`release ${release.version} is published; unpublish it first`)
      // The foreign key cascades the delete to the release's translations.
      await ctx.commit([ctx.db.delete(changelogReleases).where(eq(changelogReleases.id, release.id))], {
        targetId: release.id,
        detail: { version: release.version },
      })
      return { removed: true as const }
    },
  }),
  get: procedure({
    kind: 'query',
    permission: 'changelog:manage',
    summary: 'Get a release, draft or published, with its internal fields',
    input: IdInputSchema,
    output: ReleaseRowSchema,
    errors: ['not_found'],
    async handler(input, ctx) {
      return releaseRow(ctx.db, await getRelease(ctx.db, input.id))
    },
  }),
  list: procedure({
    kind: 'query',
    permission: 'changelog:manage',
    summary:
      'List releases: drafts (newest first), then published releases in feed order; page with limit and cursor (the id of the last release you hold)',
    input: z.strictObject({ state: z.enum(['draft', 'published']).optional(), ...pageInput }),
    output: z.array(ReleaseRowSchema),
    handler: (input, ctx) => pageReleases(ctx.db, input),
  }),
  ...translationProcedures,
}
