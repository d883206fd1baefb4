import { eq, inArray } from 'drizzle-orm'
import type { BatchItem, Db } from '../db/client'
import { changelogMirror, changelogReleases, changelogTranslations } from '../db/schema/changelog'
import { fetchUpstreamFeed } from '../outside/changelog-upstream'
import {
  type HeldRelease,
  type MirroredRelease,
  type MirrorPlan,
  mirroredReleases,
  planMirror,
  UpstreamFeedSchema,
} from './mirror-plan'
import { feedReleaseOf, releasesWithTranslations } from './releases'
import type { MirrorState } from './schemas'

const MIRROR_ID = 'upstream'
type MirrorRecord = typeof changelogMirror.$inferSelect
/** The mirror row's fields; the row's id is fixed. */
export type MirrorSetting = Omit<MirrorRecord, 'id'>

/** The mirror row, absent until the upstream was first set. */
export async function readMirror(db: Db): Promise<MirrorRecord | undefined> {
  const [row] = await db.select().from(changelogMirror).where(eq(changelogMirror.id, MIRROR_ID)).limit(1)
  return row
}

/** What changelog.mirror.get shows of the mirror row. */
export function toMirrorState(row: MirrorSetting | undefined): MirrorState {
  return {
    upstream: row?.upstream ?? null,
    lastPulledAt: row?.lastPulledAt?.toISOString() ?? null,
    lastStatus: row?.lastStatus ?? null,
    lastError: row?.lastError ?? null,
  }
}

/** The write that stores the mirror setting and its pull state. */
export function writeMirror(db: Db, setting: MirrorSetting) {
  const row = { ...setting, id: MIRROR_ID }
  return db.insert(changelogMirror).values(row).onConflictDoUpdate({ target: changelogMirror.id, set: row })
}

/** Deletes every mirrored release and its translations (used when the panel stops mirroring). */
export function dropMirroredReleases(db: Db): BatchItem[] {
  const mirrored = db
    .select({ id: changelogReleases.id })
    .from(changelogReleases)
    .where(eq(changelogReleases.source, 'mirror'))
  return [
    db.delete(changelogTranslations).where(inArray(changelogTranslations.releaseId, mirrored)),
    db.delete(changelogReleases).where(eq(changelogReleases.source, 'mirror')),
  ]
}

function translationInserts(db: Db, releaseId: string, mirrored: MirroredRelease, now: Date): BatchItem[] {
  return mirrored.translations.map((t) =>
    db.insert(changelogTranslations).values({ releaseId, ...t, updatedAt: now }),
  )
}

function planWrites(db: Db, plan: MirrorPlan, now: Date): BatchItem[] {
  const writes: BatchItem[] = []
  for (const mirrored of plan.insert) {
    const id = crypto.randomUUID()
    writes.push(
      db.insert(changelogReleases).values({
        id,
        ...mirrored.release,
        phase: null,
        source: 'mirror',
        publishedAt: now,
        createdBy: null,
        createdAt: now,
        updatedAt: now,
      }),
      ...translationInserts(db, id, mirrored, now),
    )
  }
  for (const { id, mirrored } of plan.update) {
    writes.push(
      db
        .update(changelogReleases)
        .set({ ...mirrored.release, updatedAt: now })
        .where(eq(changelogReleases.id, id)),
      db.delete(changelogTranslations).where(eq(changelogTranslations.releaseId, id)),
      ...translationInserts(db, id, mirrored, now),
    )
  }
  for (const id of plan.remove) {
    writes.push(
      db.delete(changelogTranslations).where(eq(changelogTranslations.releaseId, id)),
      db.delete(changelogReleases).where(eq(changelogReleases.id, id)),
    )
  }
  return writes
}

async function heldReleases(db: Db): Promise<HeldRelease[]> {
  const { releases, translations } = await releasesWithTranslations(db)
  return releases.map((r) => ({
    id: r.id,
    source: r.source,
    version: r.version,
    feedJson:
      r.date === null
        ? null
        : JSON.stringify(feedReleaseOf({ ...r, date: r.date }, translations.get(r.id) ?? [])),
  }))
}

/** What one pull found and the writes that record it (release changes and the new pull state), to run as one batch. */
export interface PullOutcome {
  state: MirrorState
  writes: BatchItem[]
  added: number
  updated: number
  removed: number
  skipped: string[]
}

function describeIssues(issues: readonly { path: PropertyKey[]; message: string }[]): string {
  const shown = issues.slice(0, 3).map((i) => `${i.path.map(String).join('.') || '(document)'}: ${i.message}`)
  return `malformed upstream feed: ${shown.join('; ')}${issues.length > 3 ? ` (and ${issues.length - 3} more)` : ''}`
}

/**
 * Pulls the upstream feed with a conditional request and plans its storage. A failed or malformed pull changes
 * no release and keeps the ETag of the last good copy. Null when no upstream is set: nothing is fetched.
 */
export async function pullMirror(db: Db, now = new Date()): Promise<PullOutcome | null> {
  const mirror = await readMirror(db)
  if (!mirror?.upstream) return null
  const fetched = await fetchUpstreamFeed(mirror.upstream, mirror.etag)
  const record = (status: MirrorRecord['lastStatus'], error: string | null, etag: string | null) => {
    const row = { ...mirror, etag, lastPulledAt: now, lastStatus: status, lastError: error, updatedAt: now }
    return { state: toMirrorState(row), write: writeMirror(db, row) }
  }
  const unchanged = { added: 0, updated: 0, removed: 0, skipped: [] }
  if (fetched.kind !== 'ok') {
    const { state, write } =
      fetched.kind === 'unchanged'
        ? record('unchanged', null, mirror.etag)
        : record('failed', fetched.error, mirror.etag)
    return { state, writes: [write], ...unchanged }
  }
  const parsed = UpstreamFeedSchema.safeParse(fetched.body)
  if (!parsed.success) {
    const { state, write } = record('failed', describeIssues(parsed.error.issues), mirror.etag)
    return { state, writes: [write], ...unchanged }
  }
  const plan = planMirror(mirroredReleases(parsed.data), await heldReleases(db))
  const { state, write } = record('ok', null, fetched.etag)
  return {
    state,
    writes: [...planWrites(db, plan, now), write],
    added: plan.insert.length,
    updated: plan.update.length,
    removed: plan.remove.length,
    skipped: plan.skipped,
  }
}
