import { z } from '@hono/zod-openapi'
import { and, eq } from 'drizzle-orm'
import { commitGuarded, nextUpdatedAt } from '../db/batch-guard'
import { changelogReleases, changelogTranslations } from '../db/schema/changelog'
import { IdSchema } from '../lib/schemas'
import { procedure } from '../rpc/define'
import { notFound } from '../rpc/errors'
import { invalidateFeed } from './feed-cache'
import { assertLocal, getRelease, lostRace, setTranslation, toReleaseRow, translationsOf } from './releases'
import {
  canonicalTag,
  ItemTextSchema,
  LanguageTagSchema,
  MAX_ITEMS,
  ReleaseRowSchema,
  SummarySchema,
  TitleSchema,
} from './schemas'

export const translationProcedures = {
  setTranslation: procedure({
    kind: 'mutation',
    permission: 'changelog:manage',
    audit: 'changelog.translation-set',
    summary:
      "Add or replace a release's translation into one language; items align by index with the release's items",
    input: z.strictObject({
      id: IdSchema,
      lang: LanguageTagSchema,
      title: TitleSchema,
      summary: SummarySchema.nullable().optional(),
      items: z.array(z.strictObject({ text: ItemTextSchema })).max(MAX_ITEMS),
      machine: z.boolean(),
    }),
    output: ReleaseRowSchema,
    errors: ['not_found', 'conflict'],
    async handler(input, ctx) {
      const release = await getRelease(ctx.db, input.id)
      assertLocal(release)
      const change = await setTranslation(ctx.db, release, input, new Date())
      await commitGuarded(
        ctx.commit(change.writes, {
          targetId: release.id,
          detail: { version: release.version, lang: canonicalTag(input.lang), machine: input.machine },
        }),
        () => lostRace(ctx.db, release),
      )
      invalidateFeed()
      return toReleaseRow(change.release, change.translations)
    },
  }),
  removeTranslation: procedure({
    kind: 'mutation',
    permission: 'changelog:manage',
    audit: 'changelog.translation-remove',
    summary: "Remove a release's translation into one language",
    input: z.strictObject({ id: IdSchema, lang: LanguageTagSchema }),
    output: ReleaseRowSchema,
    errors: ['not_found', 'conflict'],
    async handler(input, ctx) {
      const release = await getRelease(ctx.db, input.id)
      assertLocal(release)
      const lang = canonicalTag(input.lang)
      const translations = await translationsOf(ctx.db, release.id)
      if (!translations.some((t) => t.lang === lang))
        throw notFound(`translation ${lang} of release ${release.version}`)
      const now = nextUpdatedAt(release.updatedAt, new Date())
      await ctx.commit(
        [
          ctx.db
            .delete(changelogTranslations)
            .where(
              and(eq(changelogTranslations.releaseId, release.id), eq(changelogTranslations.lang, lang)),
            ),
          ctx.db
            .update(changelogReleases)
            .set({ updatedAt: now })
            .where(eq(changelogReleases.id, release.id)),
        ],
        { targetId: release.id, detail: { version: release.version, lang } },
      )
      invalidateFeed()
      return toReleaseRow(
        { ...release, updatedAt: now },
        translations.filter((t) => t.lang !== lang),
      )
    },
  }),
}
