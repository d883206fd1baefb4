import { db } from '../db/client'
import { customHostnames } from '../db/schema/custom-hostnames'
import { enqueueZoneSync } from '../dns-servers/sync/queue'
import { holds, recordsInTheWay } from '../dns-write/in-the-way'
import { type NameWriter, WriterFailure } from '../dns-write/name-writer'
import { openNameWriter } from '../dns-write/open-name-writer'
import type { Env } from '../env'
import type { JobOutcome } from '../jobs/outcome'
import { backoffSeconds } from '../lib/backoff'
import { clearOperationalEvent, raiseOperationalEvent } from '../notifications/operational'
import { reconcileNodeOfHostname } from '../routes/reconcile-node'
import { type CustomHostnameWriteMessage, current, rowFor, save } from './jobs'
import { hostnameEvent, hostnameEventKey } from './operational-event'
import { providerRefused, providerTurn, waitForProvider } from './provider-wait'
import {
  dropEntries,
  intentFor,
  type LedgerEntry,
  ledgerOf,
  markWritten,
  matchLedger,
  recordIntents,
} from './record-ledger'
import { type Failure, recordsInTheWayFailure, writeFailure } from './remedies'
import type { CustomHostnameRecord } from './rows'

/**
 * Tries of one round of a write: 30 + 60 + 120 s of backoff between them, so a write that keeps failing is
 * failed about three and a half minutes in, and nothing tries again until a register or an operator's jobs.retry.
 */
export const WRITE_ATTEMPTS = 4

/**
 * Shows the row failed and tells the installation (`custom-hostname.failed`) unless a newer plan took it; answers
 * whether it did.
 */
async function showFailed(env: Env, row: CustomHostnameRecord, failure: Failure): Promise<boolean> {
  const written = await db(env.DB)
    .update(customHostnames)
    .set({
      state: 'failed',
      failureRemedy: failure.remedy,
      failureDetail: failure.detail,
      attempts: row.attempts + 1,
      updatedAt: new Date(),
    })
    .where(current(row))
    .returning({ id: customHostnames.id })
  if (written.length === 0) return false
  await raiseOperationalEvent(env, hostnameEvent(row, 'failed', failure))
  return true
}

/** The round ends failed: the run shows dead on the jobs list, where an operator can retry it once fixed. */
async function roundFailed(env: Env, row: CustomHostnameRecord, failure: WriterFailure): Promise<JobOutcome> {
  if (!(await showFailed(env, row, writeFailure(row.zoneName, failure, row.records, null))))
    return { kind: 'done' }
  return { kind: 'failed', error: failure.detail, attempts: row.attempts + 1 }
}

// When the last try of the round runs: the sum of the backoffs left.
function lastTryAt(attempts: number, now: Date): Date {
  let seconds = 0
  for (let n = attempts; n < WRITE_ATTEMPTS; n++) seconds += backoffSeconds(n)
  return new Date(now.getTime() + seconds * 1000)
}

// A try that failed with tries left: the row stays pending and shows the error and when the last try runs.
async function passingFailure(
  env: Env,
  row: CustomHostnameRecord,
  failure: WriterFailure,
): Promise<JobOutcome> {
  const attempts = row.attempts + 1
  if (attempts >= WRITE_ATTEMPTS) return roundFailed(env, row, failure)
  const now = new Date()
  const shown = writeFailure(row.zoneName, failure, row.records, lastTryAt(attempts, now))
  await db(env.DB)
    .update(customHostnames)
    .set({ attempts, failureRemedy: shown.remedy, failureDetail: shown.detail, updatedAt: now })
    .where(current(row))
  return {
    kind: 'retry',
    delaySeconds: Math.max(backoffSeconds(attempts), failure.retryAfterSeconds ?? 0),
  }
}

// Creates that land after a remove took their intents are deleted at once: nothing the panel wrote goes untracked.
async function writeMissing(
  env: Env,
  row: CustomHostnameRecord,
  writer: NameWriter,
  present: Awaited<ReturnType<NameWriter['read']>>,
  stale: ReturnType<typeof matchLedger>,
  intents: LedgerEntry[],
) {
  const database = db(env.DB)
  const orphans: { type: string; value: string; recordId: string | null }[] = []
  const applied = await writer.apply(
    row.hostname,
    present,
    { remove: [...stale.values()], create: intents },
    async (record, recordId) => {
      const entry = intents.find((e) => e.type === record.type && e.value === record.value)
      if (entry && !(await markWritten(database, entry.id, recordId)))
        orphans.push({ type: record.type, value: record.value, recordId })
    },
  )
  if (orphans.length > 0) {
    const now = await writer.read(row.hostname)
    await writer.apply(row.hostname, now, { remove: orphans, create: [] }, async () => {})
  }
  return applied
}

/**
 * Brings a pending row's name to its plan. It reads the name first: a record the panel did not write that stands
 * in the way fails the row naming it (nothing is added beside it); an identical one counts as present and stays
 * someone else's. Records the panel wrote for an older plan go; missing ones are recorded as intents, then written.
 */
export async function customHostnameWriteJob(
  message: CustomHostnameWriteMessage,
  env: Env,
  attempts = 1,
): Promise<JobOutcome> {
  const database = db(env.DB)
  const row = await rowFor(database, message, ['pending'])
  if (!row?.writerKind || !row.writerId) return { kind: 'done' }
  let writer: NameWriter | null = null
  try {
    writer = await openNameWriter(database, env, row.writerKind, row.writerId, row.zoneName)
    // A provider account's writes take turns within its API limit: a bulk registration waits, it does not fail.
    const turn = writer.budget && (await providerTurn(env, writer.budget, row))
    if (turn) return waitForProvider(env, row, message, attempts, turn, null)
    // Records an earlier plan wrote through another writer stay in the ledger for remove.
    const entries = (await ledgerOf(database, row.id)).filter(
      (e) => e.via === row.writerKind && e.writerId === row.writerId,
    )
    const present = await writer.read(row.hostname)
    const ours = matchLedger(entries, present)
    const others = present.filter((p) => ![...ours.values()].includes(p))
    const inTheWay = recordsInTheWay(row.records, others)
    if (inTheWay.length > 0) {
      const found = inTheWay.map((r) => ({ ...r, name: row.hostname }))
      await showFailed(env, row, recordsInTheWayFailure(row.hostname, found, row.records))
      return { kind: 'done' }
    }
    const stale = new Map([...ours].filter(([entry]) => !holds(row.records, entry)))
    const vanished = entries.filter((e) => !ours.has(e) && !holds(row.records, e))
    const missing = row.records.filter((record) => !holds(present, record))
    const now = new Date()
    const writerRef = { via: row.writerKind, writerId: row.writerId, zoneName: writer.zoneName }
    const intents = missing.map((record) => intentFor(row.id, writerRef, record, now))
    if (!(await recordIntents(database, intents, row.id, row.generation))) return { kind: 'done' }
    // Found again after a lost answer: the panel's own, known by the intent it recorded before writing.
    for (const [entry, found] of ours)
      if (entry.state === 'intended' && !stale.has(entry))
        await markWritten(database, entry.id, found.recordId)
    const applied = await writeMissing(env, row, writer, present, stale, intents)
    const state = applied.waiting.length === 0 ? ('active' as const) : ('pending' as const)
    await save(database, [
      ...applied.writes,
      ...dropEntries(database, row.id, [...stale.keys(), ...vanished]),
      database
        .update(customHostnames)
        .set({
          state,
          failureRemedy: null,
          failureDetail: null,
          attempts: row.attempts + 1,
          updatedAt: new Date(),
        })
        .where(current(row)),
    ])
    await enqueueZoneSync(env, applied.jobs)
    // Active is what makes a hostname issuable without an ask URL: the node learns it now.
    if (state === 'active') {
      await clearOperationalEvent(env, hostnameEventKey(row.id))
      await reconcileNodeOfHostname(env, database, row.hostname)
      return { kind: 'done' }
    }
    if (row.attempts + 1 >= WRITE_ATTEMPTS) {
      const behind = new WriterFailure(
        'unreachable',
        `the nameserver boxes ${applied.waiting.join(', ')} have not taken the records`,
      )
      return roundFailed(env, row, behind)
    }
    return { kind: 'retry', delaySeconds: backoffSeconds(row.attempts + 1) }
  } catch (error) {
    if (!(error instanceof WriterFailure)) throw error
    // A rate limit is the provider's pace, not the row's failure: it costs no try.
    if (error.kind === 'limited' && writer?.budget) {
      const until = await providerRefused(env, writer.budget, error)
      return waitForProvider(env, row, message, attempts, until, error)
    }
    if (error.passing) return passingFailure(env, row, error)
    return roundFailed(env, row, error)
  }
}
