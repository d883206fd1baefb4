import { and, eq, isNotNull, ne, type SQL } from 'drizzle-orm'
import type { Principal } from '../auth/principal'
import type { Db } from '../db/client'
import { changelogReleases, changelogTranslations } from '../db/schema/changelog'
import { conflict, notFound } from '../rpc/errors'
import { i18nOf, type PublicTranslation, toFeedRelease } from './feed'
import type { FeedRelease, ReleaseRow } from './schemas'

export type ReleaseRecord = typeof changelogReleases.$inferSelect
export type TranslationRecord = typeof changelogTranslations.$inferSelect

/** The release with this id; 404 when there is none. */
export async function getRelease(db: Db, id: string): Promise<ReleaseRecord> {
  const [release] = await db.select().from(changelogReleases).where(eq(changelogReleases.id, id)).limit(1)
  if (!release) throw notFound(`release ${id}`)
  return release
}

/** Mirrored releases belong to the upstream panel: this panel shows them but never edits them. */
export function assertLocal(release: ReleaseRecord): void {
  if (release.source === 'mirror') {
    throw conflict(`release ${release.version} is mirrored from the upstream feed and is managed there`)
  }
}

/** 409 when another release already uses the version. */
export async function assertVersionFree(db: Db, version: string, exceptId = ''): Promise<void> {
  const [taken] = await db
    .select({ id: changelogReleases.id })
    .from(changelogReleases)
    .where(and(eq(changelogReleases.version, version), ne(changelogReleases.id, exceptId)))
    .limit(1)
  if (taken) throw conflict(`a release with version ${version} already exists`)
}

/** One release's translations, in no particular order. */
export async function translationsOf(db: Db, releaseId: string): Promise<TranslationRecord[]> {
  return db.select().from(changelogTranslations).where(eq(changelogTranslations.releaseId, releaseId))
}

function translationsQuery(db: Db, releaseFilter: SQL | undefined) {
  return db
    .select({ translation: changelogTranslations })
    .from(changelogTranslations)
    .innerJoin(changelogReleases, eq(changelogReleases.id, changelogTranslations.releaseId))
    .where(releaseFilter)
}

function byRelease(rows: readonly { translation: TranslationRecord }[]): Map<string, TranslationRecord[]> {
  const grouped = new Map<string, TranslationRecord[]>()
  for (const { translation } of rows) {
    grouped.set(translation.releaseId, [...(grouped.get(translation.releaseId) ?? []), translation])
  }
  return grouped
}

/** The releases matching a filter and their translations, read in one D1 round trip. */
export async function releasesWithTranslations(
  db: Db,
  filter?: SQL,
): Promise<{ releases: ReleaseRecord[]; translations: Map<string, TranslationRecord[]> }> {
  const [releases, translations] = await db.batch([
    db.select().from(changelogReleases).where(filter),
    translationsQuery(db, filter),
  ])
  return { releases, translations: byRelease(translations) }
}

/** The user behind a principal, recorded as a release's author (never shown in the feed). */
export function authorOf(principal: Principal): string | null {
  return principal.kind === 'anonymous' ? null : principal.userId
}

function feedTranslations(translations: readonly TranslationRecord[]): PublicTranslation[] {
  return translations.map(({ lang, title, summary, items, machine }) => ({
    lang,
    title,
    summary,
    items,
    machine,
  }))
}

/** A published release in feed shape. */
export function feedReleaseOf(
  release: ReleaseRecord & { date: string },
  translations: readonly TranslationRecord[],
) {
  return toFeedRelease(release, feedTranslations(translations))
}

/** A release as admins see it: every public field plus state, phase, source, author and timestamps. */
export function toReleaseRow(release: ReleaseRecord, translations: readonly TranslationRecord[]): ReleaseRow {
  return {
    id: release.id,
    version: release.version,
    title: release.title,
    severity: release.severity,
    summary: release.summary,
    items: release.items,
    i18n: i18nOf(feedTranslations(translations)),
    phase: release.phase,
    source: release.source,
    state: release.date === null ? 'draft' : 'published',
    date: release.date,
    publishedAt: release.publishedAt?.toISOString() ?? null,
    createdBy: release.createdBy,
    createdAt: release.createdAt.toISOString(),
    updatedAt: release.updatedAt.toISOString(),
  }
}

/** One release's admin row, with its translations. */
export async function releaseRow(db: Db, release: ReleaseRecord): Promise<ReleaseRow> {
  return toReleaseRow(release, await translationsOf(db, release.id))
}

/** Every published release in feed shape. */
export async function publishedFeedReleases(db: Db): Promise<FeedRelease[]> {
  const { releases, translations } = await releasesWithTranslations(db, isNotNull(changelogReleases.date))
  return releases.flatMap((release) =>
    release.date === null
      ? []
      : [feedReleaseOf({ ...release, date: release.date }, translations.get(release.id) ?? [])],
  )
}
