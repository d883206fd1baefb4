import { and, eq, isNotNull, isNull, sql } from 'drizzle-orm'
import { db } from '../db/client'
import {
  certificateAttempts,
  certificateObservations,
  customHostnames,
  hostnameClaims,
} from '../db/schema/custom-hostnames'
import { enqueueZoneSync } from '../dns-servers/sync/queue'
import { WriterFailure } from '../dns-write/name-writer'
import { openNameWriter } from '../dns-write/open-name-writer'
import type { Env } from '../env'
import type { JobOutcome } from '../jobs/outcome'
import { backoffSeconds } from '../lib/backoff'
import { clearOperationalEvent, raiseOperationalEvent } from '../notifications/operational'
import {
  type CustomHostnameRemoveMessage,
  current,
  enqueueCustomHostnameJob,
  MAX_DNS_ATTEMPTS,
  rowFor,
  save,
} from './jobs'
import { hostnameEvent, hostnameEventKey } from './operational-event'
import { dropEntries, type LedgerEntry, ledgerOf, matchLedger, WRITE_IN_FLIGHT_MS } from './record-ledger'
import { removalFailure } from './remedies'
import type { CustomHostnameRecord } from './rows'

type Cleared =
  | { kind: 'cleared' }
  | { kind: 'in-flight' }
  | { kind: 'manual'; left: LedgerEntry[]; failure: WriterFailure }

// One writer's share of the row's records: deletes those still there; an intent whose write may still land waits.
async function clearThrough(
  env: Env,
  row: CustomHostnameRecord,
  entries: LedgerEntry[],
  recheck: boolean,
): Promise<Cleared> {
  const database = db(env.DB)
  const [first] = entries
  if (!first) return { kind: 'cleared' }
  let writer: Awaited<ReturnType<typeof openNameWriter>>
  try {
    writer = await openNameWriter(database, env, first.via, first.writerId, first.zoneName)
  } catch (error) {
    if (!(error instanceof WriterFailure) || error.kind !== 'gone') throw error
    // The zone or account is gone: a person was told which records to delete; asked again, the row goes.
    if (!recheck) return { kind: 'manual', left: entries, failure: error }
    await save(database, dropEntries(database, row.id, entries))
    return { kind: 'cleared' }
  }
  const present = await writer.read(row.hostname)
  const found = matchLedger(entries, present)
  const young = (e: LedgerEntry) =>
    e.state === 'intended' && Date.now() - e.createdAt.getTime() < WRITE_IN_FLIGHT_MS
  const waiting = entries.filter((e) => !found.has(e) && young(e))
  const absent = entries.filter((e) => !found.has(e) && !young(e))
  if (found.size > 0 && !writer.canDelete)
    return {
      kind: 'manual',
      left: [...found.keys()],
      failure: new WriterFailure('refused', `${writer.label} has no automated delete`),
    }
  const applied = await writer.apply(
    row.hostname,
    present,
    { remove: [...found.values()], create: [] },
    async () => {},
  )
  await save(database, [...applied.writes, ...dropEntries(database, row.id, [...found.keys(), ...absent])])
  await enqueueZoneSync(env, applied.jobs)
  return waiting.length > 0 ? { kind: 'in-flight' } : { kind: 'cleared' }
}

function byWriter(entries: LedgerEntry[]): LedgerEntry[][] {
  const groups = new Map<string, LedgerEntry[]>()
  for (const entry of entries) {
    const key = `${entry.via}:${entry.writerId}:${entry.zoneName}`
    groups.set(key, [...(groups.get(key) ?? []), entry])
  }
  return [...groups.values()]
}

/**
 * A register that came during the removal takes the row at its next generation, once nothing is left to delete
 * (or nothing more can be: what is left stays in the ledger, the new registration's to keep or replace). Answers
 * false when no register is waiting.
 */
async function registerAfterRemoval(env: Env, row: CustomHostnameRecord): Promise<boolean> {
  const generation = row.generation + 1
  const [taken] = await db(env.DB)
    .update(customHostnames)
    .set({
      state: sql`${customHostnames.afterRemoval}`,
      afterRemoval: null,
      generation,
      attempts: 0,
      failureRemedy: null,
      failureDetail: null,
      updatedAt: new Date(),
    })
    .where(and(current(row), eq(customHostnames.state, 'removing'), isNotNull(customHostnames.afterRemoval)))
    .returning({ state: customHostnames.state })
  if (!taken) return false
  await clearOperationalEvent(env, hostnameEventKey(row.id))
  if (taken.state === 'pending')
    await enqueueCustomHostnameJob(env, { type: 'custom-hostname.write', id: row.id, generation })
  return true
}

async function manual(env: Env, row: CustomHostnameRecord, left: LedgerEntry[], failure: WriterFailure) {
  if (await registerAfterRemoval(env, row)) return { kind: 'done' } as const
  const shown = removalFailure(left[0]?.zoneName ?? row.zoneName, left, failure)
  const written = await db(env.DB)
    .update(customHostnames)
    .set({
      state: 'removal-manual',
      failureRemedy: shown.remedy,
      failureDetail: shown.detail,
      attempts: row.attempts + 1,
      updatedAt: new Date(),
    })
    .where(current(row))
    .returning({ id: customHostnames.id })
  if (written.length > 0) await raiseOperationalEvent(env, hostnameEvent(row, 'removal-manual', shown))
  return { kind: 'done' } as const
}

/**
 * Deletes every record the ledger holds for a removing row, whatever job wrote it and whenever; the row and its
 * claim go once none is left, or the row lands on removal-manual saying which records to delete by hand.
 */
export async function customHostnameRemoveJob(
  message: CustomHostnameRemoveMessage,
  env: Env,
): Promise<JobOutcome> {
  const database = db(env.DB)
  const row = await rowFor(database, message, ['removing'])
  if (!row) return { kind: 'done' }
  let inFlight = false
  try {
    for (const group of byWriter(await ledgerOf(database, row.id))) {
      const cleared = await clearThrough(env, row, group, message.recheck === true)
      if (cleared.kind === 'manual') return manual(env, row, cleared.left, cleared.failure)
      if (cleared.kind === 'in-flight') inFlight = true
    }
  } catch (error) {
    if (!(error instanceof WriterFailure)) throw error
    const attempts = row.attempts + 1
    if (error.passing && attempts < MAX_DNS_ATTEMPTS) {
      await database.update(customHostnames).set({ attempts, updatedAt: new Date() }).where(current(row))
      return { kind: 'retry', delaySeconds: Math.max(backoffSeconds(attempts), error.retryAfterSeconds ?? 0) }
    }
    return manual(env, row, await ledgerOf(database, row.id), error)
  }
  if (inFlight) return { kind: 'retry', delaySeconds: WRITE_IN_FLIGHT_MS / 1000 }
  if (await registerAfterRemoval(env, row)) return { kind: 'done' }
  // A register landing between the two steps keeps the row: nothing goes unless the row does.
  const gone = sql`not exists (select 1 from ${customHostnames} where ${customHostnames.id} = ${row.id})`
  await save(database, [
    database.delete(customHostnames).where(and(current(row), isNull(customHostnames.afterRemoval))),
    database.delete(certificateObservations).where(and(eq(certificateObservations.ownerId, row.id), gone)),
    database.delete(certificateAttempts).where(and(eq(certificateAttempts.ownerId, row.id), gone)),
    database
      .delete(hostnameClaims)
      .where(and(eq(hostnameClaims.hostname, row.hostname), eq(hostnameClaims.ownerId, row.id), gone)),
  ])
  if (await registerAfterRemoval(env, row)) return { kind: 'done' }
  await clearOperationalEvent(env, hostnameEventKey(row.id))
  return { kind: 'done' }
}
