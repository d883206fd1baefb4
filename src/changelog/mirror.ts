import { and, eq, sql } from 'drizzle-orm'
import { failUnless } from '../db/batch-guard'
import type { BatchItem, Db } from '../db/client'
import { changelogMirror, changelogReleases, changelogTranslations } from '../db/schema/changelog'
import { fetchUpstreamFeed } from '../outside/changelog-upstream'
import { toFeedRelease } from './feed'
import {
  type HeldRelease,
  type MirroredRelease,
  type MirrorPlan,
  mirroredReleases,
  planMirror,
  UpstreamFeedSchema,
} from './mirror-plan'
import { releasesWithTranslations } from './releases'
import type { MirrorState } from './schemas'

const MIRROR_ID = 'upstream'
type MirrorRecord = typeof changelogMirror.$inferSelect
/** The mirror row's fields; the row's id is fixed. */
export type MirrorSetting = Omit<MirrorRecord, 'id'>

/**
 * The most statements one D1 batch of a pull carries. A first pull of a large feed writes thousands of rows, far
 * more than one batch should hold, so a pull stores its releases in batches of at most this many statements,
 * each release's writes together in one batch.
 */
export const MIRROR_BATCH_STATEMENTS = 100
// D1 binds at most 100 parameters per statement, and a translation row binds 7.
const TRANSLATIONS_PER_INSERT = 14

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

/**
 * Setting the upstream. Any change of upstream (clearing it included) deletes the mirrored releases in the same
 * batch, their translations by the foreign key's cascade, and starts the pull state afresh: the old upstream's
 * releases never show under the new one. Setting the same upstream again keeps both.
 */
export function setUpstream(
  db: Db,
  current: MirrorRecord | undefined,
  upstream: string | null,
  now: Date,
): { setting: MirrorSetting; writes: BatchItem[] } {
  const unchanged = current !== undefined && current.upstream === upstream
  const setting: MirrorSetting = unchanged
    ? { ...current, updatedAt: now }
    : { upstream, etag: null, lastPulledAt: null, lastStatus: null, lastError: null, updatedAt: now }
  const row = { ...setting, id: MIRROR_ID }
  const write = db
    .insert(changelogMirror)
    .values(row)
    .onConflictDoUpdate({ target: changelogMirror.id, set: row })
  if (unchanged) return { setting, writes: [write] }
  return {
    setting,
    writes: [write, db.delete(changelogReleases).where(eq(changelogReleases.source, 'mirror'))],
  }
}

function translationInserts(db: Db, releaseId: string, mirrored: MirroredRelease, now: Date): BatchItem[] {
  const rows = mirrored.translations.map((t) => ({ releaseId, ...t, updatedAt: now }))
  const inserts: BatchItem[] = []
  for (let i = 0; i < rows.length; i += TRANSLATIONS_PER_INSERT) {
    inserts.push(db.insert(changelogTranslations).values(rows.slice(i, i + TRANSLATIONS_PER_INSERT)))
  }
  return inserts
}

/** The writes of a plan, one group per release; a group must land whole. */
function releaseWrites(db: Db, plan: MirrorPlan, now: Date): BatchItem[][] {
  const inserts = plan.insert.map((mirrored) => {
    const id = crypto.randomUUID()
    return [
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
    ]
  })
  const updates = plan.update.map(({ id, mirrored }) => [
    db
      .update(changelogReleases)
      .set({ ...mirrored.release, updatedAt: now })
      .where(eq(changelogReleases.id, id)),
    db.delete(changelogTranslations).where(eq(changelogTranslations.releaseId, id)),
    ...translationInserts(db, id, mirrored, now),
  ])
  const removals = plan.remove.map((id) => [db.delete(changelogReleases).where(eq(changelogReleases.id, id))])
  return [...inserts, ...updates, ...removals]
}

/**
 * Packs groups of writes into batches of at most MIRROR_BATCH_STATEMENTS statements, never splitting a group.
 * Each batch opens with `guard()`, so it stores nothing once the upstream it came from is no longer the one set.
 */
function inBatches(groups: readonly BatchItem[][], guard: () => BatchItem): BatchItem[][] {
  const batches: BatchItem[][] = []
  let batch: BatchItem[] = []
  for (const group of groups) {
    if (batch.length > 0 && batch.length + group.length > MIRROR_BATCH_STATEMENTS) {
      batches.push(batch)
      batch = []
    }
    if (batch.length === 0) batch.push(guard())
    batch.push(...group)
  }
  if (batch.length > 0) batches.push(batch)
  return batches
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
        : JSON.stringify(toFeedRelease({ ...r, date: r.date }, translations.get(r.id) ?? [])),
  }))
}

/** What a pull changed, as changelog.mirror.pull reports it. */
export interface PullChanges {
  added: number
  updated: number
  removed: number
  skipped: string[]
}

const NO_CHANGES: PullChanges = { added: 0, updated: 0, removed: 0, skipped: [] }

/** A pull's state and the write that records it. */
export interface PullRecord {
  state: MirrorState
  record: BatchItem
}

/** What one pull found: its release writes in batches, and how to record it stored or failed. */
export interface PullOutcome extends PullRecord, PullChanges {
  /** Release writes, to run in order before `record`. */
  batches: BatchItem[][]
  /** The record of a pull whose storing failed: the ETag of the last good copy stays. */
  failed(error: string): PullRecord
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
  const upstream = mirror?.upstream
  if (!mirror || !upstream) return null
  // Conditional on the upstream, so a pull that raced a change of upstream records nothing under the new one.
  const recordAs = (
    lastStatus: MirrorRecord['lastStatus'],
    lastError: string | null,
    etag: string | null,
  ) => {
    const row = { ...mirror, etag, lastPulledAt: now, lastStatus, lastError, updatedAt: now }
    const record = db
      .update(changelogMirror)
      .set({ etag, lastPulledAt: now, lastStatus, lastError, updatedAt: now })
      .where(and(eq(changelogMirror.id, MIRROR_ID), eq(changelogMirror.upstream, upstream)))
    return { state: toMirrorState(row), record }
  }
  const failed = (error: string) => recordAs('failed', error, mirror.etag)
  const fetched = await fetchUpstreamFeed(upstream, mirror.etag)
  if (fetched.kind !== 'ok') {
    const result =
      fetched.kind === 'unchanged' ? recordAs('unchanged', null, mirror.etag) : failed(fetched.error)
    return { ...result, ...NO_CHANGES, batches: [], failed }
  }
  const parsed = UpstreamFeedSchema.safeParse(fetched.body)
  if (!parsed.success)
    return { ...failed(describeIssues(parsed.error.issues)), ...NO_CHANGES, batches: [], failed }
  const plan = planMirror(mirroredReleases(parsed.data), await heldReleases(db))
  const stillUpstream = sql`exists (select 1 from ${changelogMirror} where ${changelogMirror.id} = ${MIRROR_ID} and ${changelogMirror.upstream} = ${upstream})`
  return {
    ...recordAs('ok', null, fetched.etag),
    batches: inBatches(releaseWrites(db, plan, now), () => failUnless(db, stillUpstream)),
    failed,
    added: plan.insert.length,
    updated: plan.update.length,
    removed: plan.remove.length,
    skipped: plan.skipped,
  }
}

/**
 * Runs a pull's release batches and answers how to record it. A batch that fails turns the pull into a failed
 * one whose error says why; the batches stored before it stay, and since the ETag is not advanced the next
 * pull fetches the feed in full and completes them.
 */
export async function storePull(db: Db, outcome: PullOutcome): Promise<PullRecord & PullChanges> {
  const { batches, failed, ...stored } = outcome
  for (const [done, [first, ...rest]] of batches.entries()) {
    if (!first) continue
    try {
      await db.batch([first, ...rest])
    } catch (error) {
      console.error('storing the changelog mirror pull failed', error)
      const reason = error instanceof Error ? error.message : String(error)
      return {
        ...failed(`could not store the pull (${done} of ${batches.length} batches stored): ${reason}`),
        ...NO_CHANGES,
      }
    }
  }
  return stored
}
