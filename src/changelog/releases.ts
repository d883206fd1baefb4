import { and, eq, isNotNull, ne, type SQL, sql } from 'drizzle-orm'
import type { Principal } from '../auth/principal'
import { failUnless, nextUpdatedAt } from '../db/batch-guard'
import type { BatchItem, Db } from '../db/client'
import { changelogReleases, changelogTranslations } from '../db/schema/changelog'
import { conflict, invalid, notFound } from '../rpc/errors'
import { i18nOf, toFeedRelease } from './feed'
import { canonicalTag, type FeedRelease, type ReleaseRow } from './schemas'
import { insertDeliveries } from './webhook-deliveries'

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

/** A release as admins see it: every public field plus state, phase, source, author and timestamps. */
export function toReleaseRow(release: ReleaseRecord, translations: readonly TranslationRecord[]): ReleaseRow {
  return {
    id: release.id,
    version: release.version,
    title: release.title,
    severity: release.severity,
    summary: release.summary,
    items: release.items,
    i18n: i18nOf(translations),
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
      : [toFeedRelease({ ...release, date: release.date }, translations.get(release.id) ?? [])],
  )
}

/** The UTC calendar date (YYYY-MM-DD) of an instant. */
export function todayUtc(now: Date): string {
  return now.toISOString().slice(0, 10)
}

/** A release after a change, with its translations, and the writes that store the change. */
export interface ReleaseChange {
  release: ReleaseRecord
  translations: TranslationRecord[]
  writes: BatchItem[]
}

/** The fields changelog.releases.update may change; absent ones keep their value, null clears an optional one. */
export interface ReleaseEdit {
  version?: string | undefined
  title?: string | undefined
  severity?: ReleaseRecord['severity'] | undefined
  summary?: string | null | undefined
  items?: ReleaseRecord['items'] | undefined
  phase?: string | null | undefined
}

/**
 * An edit of a local release. 409 when it would change a published release's version or take a version in
 * use, or change the item count while translations align with the current one.
 */
export async function editRelease(
  db: Db,
  release: ReleaseRecord,
  edit: ReleaseEdit,
  now: Date,
): Promise<ReleaseChange> {
  if (edit.version !== undefined && edit.version !== release.version) {
    if (release.date !== null)
      throw conflict('the version of a published release is its identity; unpublish first')
    await assertVersionFree(db, edit.version, release.id)
  }
  const translations = await translationsOf(db, release.id)
  const itemCount = edit.items?.length ?? release.items.length
  const misaligned = translations.filter((t) => t.items.length !== itemCount).map((t) => t.lang)
  if (misaligned.length > 0) {
    throw conflict(
      `translations ${misaligned.join(', ')} align with ${release.items.length} items; update or remove them first`,
    )
  }
  const changes = {
    ...(edit.version === undefined ? {} : { version: edit.version }),
    ...(edit.title === undefined ? {} : { title: edit.title }),
    ...(edit.severity === undefined ? {} : { severity: edit.severity }),
    ...(edit.summary === undefined ? {} : { summary: edit.summary }),
    ...(edit.items === undefined ? {} : { items: edit.items }),
    ...(edit.phase === undefined ? {} : { phase: edit.phase }),
    updatedAt: nextUpdatedAt(release.updatedAt, now),
  } satisfies Partial<ReleaseRecord>
  return {
    release: { ...release, ...changes },
    translations,
    writes: [
      db.update(changelogReleases).set(changes).where(asRead(release)),
      failUnless(db, sql`changes() = 1`),
    ],
  }
}

/**
 * The release as it was read: same publication date and updatedAt (which every write advances), so a write
 * decided on that read fails its guard when a publish, unpublish, edit or translation landed meanwhile.
 */
export function asRead(release: ReleaseRecord): SQL {
  return sql`(${eq(changelogReleases.id, release.id)} and ${changelogReleases.date} is ${release.date} and ${eq(changelogReleases.updatedAt, release.updatedAt)})`
}

/** Answers a write that lost its guard: 404 when the release is gone, else 409 naming what changed. */
export async function lostRace(db: Db, release: ReleaseRecord): Promise<Error> {
  const current = await getRelease(db, release.id)
  if (current.date !== release.date) {
    return conflict(
      `release ${current.version} was ${current.date === null ? 'unpublished' : 'published'} meanwhile`,
    )
  }
  return conflict(`release ${current.version} changed meanwhile; read it again and retry`)
}

/**
 * Publishing a draft, dated `date` or else the UTC day of `now`. The update only takes the release as it was
 * read, still a draft; when another request published, edited or removed it first, the guard fails the whole
 * batch, audit entry included, so exactly one publish lands and notifies, with the body it read. Deliveries go
 * to the targets enabled at commit time.
 */
export function publishRelease(
  db: Db,
  release: ReleaseRecord,
  translations: readonly TranslationRecord[],
  date: string | undefined,
  now: Date,
): ReleaseChange {
  const day = date ?? todayUtc(now)
  const changes = { date: day, publishedAt: now, updatedAt: nextUpdatedAt(release.updatedAt, now) }
  const published: ReleaseRecord = { ...release, ...changes }
  return {
    release: published,
    translations: [...translations],
    writes: [
      db.update(changelogReleases).set(changes).where(asRead(release)),
      // changes() counts the rows the update just before changed.
      failUnless(db, sql`changes() = 1`),
      insertDeliveries(db, release, toFeedRelease({ ...published, date: day }, translations), now),
    ],
  }
}

/** A translation as changelog.releases.setTranslation receives it. */
export interface TranslationInput {
  lang: string
  title: string
  summary?: string | null | undefined
  items: TranslationRecord['items']
  machine: boolean
}

/**
 * Adds or replaces a release's translation into one language, stored under its canonical tag; 400 unless its
 * items align with the release's.
 */
export async function setTranslation(
  db: Db,
  release: ReleaseRecord,
  input: TranslationInput,
  now: Date,
): Promise<ReleaseChange> {
  if (input.items.length !== release.items.length) {
    throw invalid(
      'items',
      `must have ${release.items.length} entries, one per release item in the same order (got ${input.items.length})`,
    )
  }
  const translation: TranslationRecord = {
    releaseId: release.id,
    lang: canonicalTag(input.lang),
    title: input.title,
    summary: input.summary ?? null,
    items: input.items,
    machine: input.machine,
    updatedAt: now,
  }
  const others = (await translationsOf(db, release.id)).filter((t) => t.lang !== translation.lang)
  const { title, summary, items, machine } = translation
  return {
    release: { ...release, updatedAt: nextUpdatedAt(release.updatedAt, now) },
    translations: [...others, translation],
    writes: [
      db
        .insert(changelogTranslations)
        .values(translation)
        .onConflictDoUpdate({
          target: [changelogTranslations.releaseId, changelogTranslations.lang],
          set: { title, summary, items, machine, updatedAt: now },
        }),
      // The items were checked against this read of the release: an edit meanwhile fails the batch.
      db
        .update(changelogReleases)
        .set({ updatedAt: nextUpdatedAt(release.updatedAt, now) })
        .where(asRead(release)),
      failUnless(db, sql`changes() = 1`),
    ],
  }
}
