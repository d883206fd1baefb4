import { and, eq } from 'drizzle-orm'
import { forgetObservations } from '../agent-callbacks/observations'
import { type BatchItem, type Db, db } from '../db/client'
import { customHostnames, hostnameClaims } from '../db/schema/custom-hostnames'
import { zoneBoxEntries } from '../dns-servers/rows'
import { enqueueZoneSync } from '../dns-servers/sync-queue'
import type { Env } from '../env'
import type { JobOutcome } from '../jobs/outcome'
import { backoffSeconds } from '../lib/backoff'
import { deleteConnectedRecords, writeConnectedRecords } from './connected-dns'
import { deleteHostedRecords, writeHostedRecords } from './hosted-dns'
import { type DnsStep, describeRecords } from './outcome'
import type { CustomHostnameRecord } from './rows'

export interface CustomHostnameWriteMessage {
  type: 'custom-hostname.write'
  id: string
  generation: number
}
export interface CustomHostnameRemoveMessage {
  type: 'custom-hostname.remove'
  id: string
  generation: number
}
export type CustomHostnameMessage = CustomHostnameWriteMessage | CustomHostnameRemoveMessage

/** DNS attempts per register or remove (about an hour of backoff) before a passing error counts as final. */
export const MAX_DNS_ATTEMPTS = 8

/** Queues the job that carries a register or a remove out. */
export async function enqueueCustomHostnameJob(env: Env, message: CustomHostnameMessage): Promise<void> {
  await env.JOBS.sendBatch([{ body: message }])
}

function current(row: CustomHostnameRecord) {
  return and(eq(customHostnames.id, row.id), eq(customHostnames.generation, row.generation))
}

async function rowFor(database: Db, message: CustomHostnameMessage, state: CustomHostnameRecord['state']) {
  const [row] = await database
    .select()
    .from(customHostnames)
    .where(and(eq(customHostnames.id, message.id), eq(customHostnames.generation, message.generation)))
  return row?.state === state ? row : null
}

async function save(database: Db, writes: BatchItem[]): Promise<void> {
  const [first, ...rest] = writes
  if (first) await database.batch([first, ...rest])
}

// A passing error: remember what was written so far and try again after the backoff (or the Retry-After asked).
async function retryLater(
  database: Db,
  row: CustomHostnameRecord,
  step: Extract<DnsStep, { kind: 'transient' }>,
): Promise<JobOutcome> {
  await database
    .update(customHostnames)
    .set({ written: step.written, attempts: row.attempts + 1, updatedAt: new Date() })
    .where(current(row))
  return {
    kind: 'retry',
    delaySeconds: Math.max(backoffSeconds(row.attempts + 1), step.retryAfterSeconds ?? 0),
  }
}

// Boxes that missed the write catch up through their zone-sync chains; the row turns active once all hold it.
async function boxesBehind(database: Db, zoneId: string): Promise<string[]> {
  const entries = await zoneBoxEntries(database, zoneId)
  return entries.filter((entry) => entry.sync.state !== 'synced').map((entry) => entry.node.name)
}

/** Writes a pending row's records; active once the DNS holds them, failed with the reason when it cannot. */
export async function customHostnameWriteJob(
  message: CustomHostnameWriteMessage,
  env: Env,
): Promise<JobOutcome> {
  const database = db(env.DB)
  const row = await rowFor(database, message, 'pending')
  if (!row?.writerKind || !row.writerId) return { kind: 'done' }
  const lastTry = row.attempts + 1 >= MAX_DNS_ATTEMPTS
  const step: DnsStep =
    row.writerKind === 'hosted' && row.written.length > 0
      ? {
          kind: 'done',
          written: row.written,
          waiting: await boxesBehind(database, row.writerId),
          writes: [],
          jobs: [],
        }
      : row.writerKind === 'hosted'
        ? await writeHostedRecords(database, env, row.writerId, row.records)
        : await writeConnectedRecords(database, env, row.writerId, row.zoneName, row.records, row.written)
  const now = new Date()
  if (step.kind === 'done' && (step.waiting.length === 0 || !lastTry)) {
    const state = step.waiting.length === 0 ? ('active' as const) : ('pending' as const)
    await save(database, [
      ...step.writes,
      database
        .update(customHostnames)
        .set({
          state,
          written: step.written,
          failureRemedy: null,
          attempts: row.attempts + 1,
          updatedAt: now,
        })
        .where(current(row)),
    ])
    await enqueueZoneSync(env, step.jobs)
    return state === 'active'
      ? { kind: 'done' }
      : { kind: 'retry', delaySeconds: backoffSeconds(row.attempts + 1) }
  }
  if (step.kind === 'transient' && !lastTry) {
    return retryLater(database, row, step)
  }
  const error =
    step.kind === 'done'
      ? `the nameserver boxes ${step.waiting.join(', ')} have not taken the records`
      : step.error
  await database
    .update(customHostnames)
    .set({
      state: 'failed',
      written: step.written,
      failureRemedy: `The panel could not write the DNS records: ${error}. Fix that and register again, or create the records yourself: ${describeRecords(row.records)}.`,
      attempts: row.attempts + 1,
      updatedAt: now,
    })
    .where(current(row))
  return { kind: 'done' }
}

/** Deletes what the panel wrote for a removing row; the row goes, or lands on removal-manual saying what to delete. */
export async function customHostnameRemoveJob(
  message: CustomHostnameRemoveMessage,
  env: Env,
): Promise<JobOutcome> {
  const database = db(env.DB)
  const row = await rowFor(database, message, 'removing')
  if (!row) return { kind: 'done' }
  const step =
    row.written[0]?.via === 'connected'
      ? await deleteConnectedRecords(database, env, row.written)
      : await deleteHostedRecords(database, env, row.written)
  if (step.kind === 'done') {
    await save(database, [
      ...step.writes,
      database.delete(customHostnames).where(current(row)),
      database
        .delete(hostnameClaims)
        .where(and(eq(hostnameClaims.hostname, row.hostname), eq(hostnameClaims.ownerId, row.id))),
      forgetObservations(database, row.id),
    ])
    await enqueueZoneSync(env, step.jobs)
    return { kind: 'done' }
  }
  if (step.kind === 'transient' && row.attempts + 1 < MAX_DNS_ATTEMPTS) {
    return retryLater(database, row, step)
  }
  await database
    .update(customHostnames)
    .set({
      state: 'removal-manual',
      written: step.written,
      failureRemedy: `Delete these records by hand: ${describeRecords(step.written)} (the panel could not: ${step.error}). Then call remove again.`,
      attempts: row.attempts + 1,
      updatedAt: new Date(),
    })
    .where(current(row))
  return { kind: 'done' }
}
