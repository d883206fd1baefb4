import { and, eq, inArray, sql } from 'drizzle-orm'
import { failUnless, isGuardFailure } from '../db/batch-guard'
import type { BatchItem, Db } from '../db/client'
import { customHostnameRecords, customHostnames } from '../db/schema/custom-hostnames'
import { type PresentRecord, sameValue, type WantedRecord } from '../dns-write/name-writer'

export type LedgerEntry = typeof customHostnameRecords.$inferSelect

/** How long a write may still land after its intent was recorded (a provider call's timeout, several times over). */
export const WRITE_IN_FLIGHT_MS = 2 * 60 * 1000

/** The records the panel wrote or is writing for a row. */
export function ledgerOf(db: Db, ownerId: string): Promise<LedgerEntry[]> {
  return db.select().from(customHostnameRecords).where(eq(customHostnameRecords.ownerId, ownerId))
}

/**
 * Pairs entries with the records read at the name: by the provider's id where the entry has one, else by type
 * and value (a hosted record, or a create whose answer was lost). Each present record pairs once.
 */
export function matchLedger<E extends Pick<LedgerEntry, 'recordId' | 'type' | 'value'>>(
  entries: readonly E[],
  present: readonly PresentRecord[],
): Map<E, PresentRecord> {
  const matched = new Map<E, PresentRecord>()
  const taken = new Set<PresentRecord>()
  const pair = (entry: E, found: PresentRecord | undefined) => {
    if (!found) return
    matched.set(entry, found)
    taken.add(found)
  }
  for (const entry of entries.filter((e) => e.recordId))
    pair(
      entry,
      present.find((p) => p.recordId === entry.recordId),
    )
  for (const entry of entries.filter((e) => !matched.has(e)))
    pair(
      entry,
      present.find(
        (p) =>
          !taken.has(p) &&
          p.type === entry.type &&
          sameValue(p.value, entry.value) &&
          (!entry.recordId || !p.recordId),
      ),
    )
  return matched
}

/** A new intent for a record about to be written through `writer`. */
export function intentFor(
  ownerId: string,
  writer: { via: 'hosted' | 'connected'; writerId: string; zoneName: string },
  record: WantedRecord,
  now: Date,
): LedgerEntry {
  return {
    id: crypto.randomUUID(),
    ownerId,
    ...writer,
    type: record.type,
    name: record.name,
    value: record.value,
    ttl: record.ttl,
    recordId: null,
    state: 'intended',
    createdAt: now,
  }
}

/**
 * Records intents only while the row is still pending at `generation`: a remove that came first
 * leaves nothing recorded (false), and one that comes later finds the intents.
 */
export async function recordIntents(
  db: Db,
  entries: readonly LedgerEntry[],
  ownerId: string,
  generation: number,
): Promise<boolean> {
  const [first, ...rest] = entries
  if (!first) return true
  try {
    await db.batch([
      failUnless(
        db,
        sql`exists (select 1 from ${customHostnames} where ${customHostnames.id} = ${ownerId}
          and ${customHostnames.generation} = ${generation} and ${customHostnames.state} = 'pending')`,
      ),
      db.insert(customHostnameRecords).values([first, ...rest]),
    ])
    return true
  } catch (error) {
    if (isGuardFailure(error)) return false
    throw error
  }
}

/** Marks an entry written (with the provider's id); false when a remove took the entry meanwhile. */
export async function markWritten(db: Db, entryId: string, recordId: string | null): Promise<boolean> {
  const result = await db
    .update(customHostnameRecords)
    .set({ state: 'written', recordId })
    .where(eq(customHostnameRecords.id, entryId))
    .run()
  return result.meta.changes > 0
}

/** The write that forgets entries (their records are gone). */
export function dropEntries(db: Db, ownerId: string, entries: readonly LedgerEntry[]): BatchItem[] {
  if (entries.length === 0) return []
  return [
    db.delete(customHostnameRecords).where(
      and(
        eq(customHostnameRecords.ownerId, ownerId),
        inArray(
          customHostnameRecords.id,
          entries.map((e) => e.id),
        ),
      ),
    ),
  ]
}
