import { z } from '@hono/zod-openapi'
import { and, eq } from 'drizzle-orm'
import { changelogReleases, changelogTranslations } from '../db/schema/changelog'
import { procedure } from '../rpc/define'
import { invalid, notFound } from '../rpc/errors'
import { invalidateFeed } from './feed-cache'
import { assertLocal, getRelease, type TranslationRecord, toReleaseRow, translationsOf } from './releases'
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
      id: z.string().min(1),
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
      if (input.items.length !== release.items.length) {
        throw invalid(
          'items',
          `must have ${release.items.length} entries, one per release item in the same order (got ${input.items.length})`,
        )
      }
      const now = new Date()
      const translation: TranslationRecord = {
        releaseId: release.id,
        lang: canonicalTag(input.lang),
        title: input.title,
        summary: input.summary ?? null,
        items: input.items,
        machine: input.machine,
        updatedAt: now,
      }
      await ctx.commit(
        [
          ctx.db
            .insert(changelogTranslations)
            .values(translation)
            .onConflictDoUpdate({
              target: [changelogTranslations.releaseId, changelogTranslations.lang],
              set: {
                title: translation.title,
                summary: translation.summary,
                items: translation.items,
                machine: translation.machine,
                updatedAt: now,
              },
            }),
          ctx.db
            .update(changelogReleases)
            .set({ updatedAt: now })
            .where(eq(changelogReleases.id, release.id)),
        ],
        {
          targetId: release.id,
          detail: { version: release.version, lang: translation.lang, machine: input.machine },
        },
      )
      invalidateFeed()
      const others = (await translationsOf(ctx.db, release.id)).filter((t) => t.lang !== translation.lang)
      return toReleaseRow({ ...release, updatedAt: now }, [...others, translation])
    },
  }),
  removeTranslation: procedure({
    kind: 'mutation',
    permission: 'changelog:manage',
    audit: 'changelog.translation-remove',
    summary: "Remove a release's translation into one language",
    input: z.strictObject({ id: z.string().min(1), lang: LanguageTagSchema }),
    output: ReleaseRowSchema,
    errors: ['not_found', 'conflict'],
    async handler(input, ctx) {
      const release = await getRelease(ctx.db, input.id)
      assertLocal(release)
      const lang = canonicalTag(input.lang)
      const translations = await translationsOf(ctx.db, release.id)
      if (!translations.some((t) => t.lang === lang))
        throw notFound(`translation ${lang} of release ${release.version}`)
      const now = new Date()
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
