import { and, eq } from 'drizzle-orm'
import type { BatchItem, Db } from '../db/client'
import { zoneBoxSync } from '../db/schema/dns-servers'
import type { Env } from '../env'
import { backoffSeconds } from '../lib/backoff'
import { openSecret, type SecretKeys } from '../lib/secrets'
import { type PowerDnsClient, PowerDnsError, powerDnsClient } from '../outside/powerdns'
import { AppError, conflict, invalid } from '../rpc/errors'
import type { NameserverBox, NameserverRecord, ZoneBoxEntry } from './rows'
import type { BoxWrite, SyncState } from './schemas'

/** A box that serves a zone, with a PowerDNS client opened from its sealed key. */
export interface LiveBox {
  nodeId: string
  name: string
  hostname: string
  state: SyncState
  attempts: number
  client: PowerDnsClient
}

/** A client for the box's PowerDNS, or null when none is installed or adopted yet. */
export async function openPowerDns(
  env: SecretKeys,
  nameserver: NameserverRecord,
): Promise<PowerDnsClient | null> {
  const { powerDnsApiUrl, powerDnsApiKeySealed, powerDnsServerId } = nameserver
  if (!powerDnsApiUrl || !powerDnsApiKeySealed || !powerDnsServerId) return null
  const apiKey = await openSecret(env, powerDnsApiKeySealed)
  return powerDnsClient({ apiUrl: powerDnsApiUrl, apiKey, serverId: powerDnsServerId })
}

/** A live box for one nameserver with the given sync state, or null when it has no PowerDNS yet. */
export async function openBox(
  env: SecretKeys,
  { node, nameserver }: NameserverBox,
  sync: { state: SyncState; attempts: number },
): Promise<LiveBox | null> {
  const client = await openPowerDns(env, nameserver)
  if (!client) return null
  return { nodeId: node.id, name: node.name, hostname: nameserver.hostname, ...sync, client }
}

/** Opens a client for every box of a zone that has PowerDNS. */
export async function liveBoxes(env: SecretKeys, entries: readonly ZoneBoxEntry[]): Promise<LiveBox[]> {
  const boxes = await Promise.all(entries.map((entry) => openBox(env, entry, entry.sync)))
  return boxes.filter((box): box is LiveBox => box !== null)
}

/** The live boxes of a zone; a zone no box with PowerDNS serves answers 409. */
export async function servingBoxes(env: SecretKeys, entries: readonly ZoneBoxEntry[]): Promise<LiveBox[]> {
  const boxes = await liveBoxes(env, entries)
  if (boxes.length === 0) throw conflict('no nameserver box with PowerDNS serves this zone')
  return boxes
}

/** A failure as one line for people: PowerDNS's own words, never a stack. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

export interface BoxOutcome {
  box: LiveBox
  error: string | null
  /** PowerDNS refused the change as invalid (422), as opposed to failing or not answering. */
  rejected: boolean
}

/** Runs `write` on every box at once; one box failing or hanging never stops the others. */
export async function writeToBoxes(
  boxes: readonly LiveBox[],
  write: (box: LiveBox) => Promise<void>,
): Promise<BoxOutcome[]> {
  const settled = await Promise.allSettled(boxes.map((box) => write(box)))
  return settled.map((result, i) => ({
    box: boxes[i] as LiveBox,
    error: result.status === 'fulfilled' ? null : errorText(result.reason),
    rejected:
      result.status === 'rejected' &&
      result.reason instanceof PowerDnsError &&
      result.reason.kind === 'rejected',
  }))
}

/**
 * A fan-out write counts only when a box that held the zone's current content took it: otherwise no box
 * would be a trustworthy source for the others, so the caller answers 502 (400 when PowerDNS refused the data
 * itself) and records nothing.
 */
export function assertWriteTook(outcomes: readonly BoxOutcome[]): void {
  if (outcomes.some((o) => o.error === null && o.box.state === 'synced')) return
  const synced = outcomes.filter((o) => o.box.state === 'synced')
  const rejection = synced.find((o) => o.rejected)
  // Every synced box refusing the data means the data is wrong, not the boxes.
  if (rejection?.error && synced.every((o) => o.rejected)) throw invalid('values', rejection.error)
  const detail = outcomes.map((o) => `${o.box.hostname}: ${o.error ?? 'not synced yet'}`).join('; ')
  throw new AppError('upstream_failed', `no synced nameserver box took the change (${detail || 'no boxes'})`)
}

export interface SyncUpdate {
  writes: BatchItem[]
  /** Boxes that missed the write: each gets a zone-sync job. */
  behind: string[]
  results: BoxWrite[]
}

/**
 * The sync rows after a fan-out write: a box that missed it becomes failed with the error; a box that took
 * it keeps its state (a pending box may still lack older changes, its job copies them).
 */
export function syncUpdates(db: Db, zoneId: string, outcomes: readonly BoxOutcome[], now: Date): SyncUpdate {
  const update: SyncUpdate = { writes: [], behind: [], results: [] }
  for (const { box, error } of outcomes) {
    const state: SyncState = error === null ? box.state : 'failed'
    update.results.push({ nodeId: box.nodeId, name: box.name, written: error === null, error, state })
    if (error === null) continue
    update.behind.push(box.nodeId)
    update.writes.push(
      db
        .update(zoneBoxSync)
        .set({ state, lastError: error, attempts: box.attempts + 1, updatedAt: now })
        .where(and(eq(zoneBoxSync.zoneId, zoneId), eq(zoneBoxSync.nodeId, box.nodeId))),
    )
  }
  return update
}

/**
 * Queues one zone-sync job per (zone, box); a box that just failed waits one backoff step first. Called after
 * the change committed, so a queue failure is logged rather than failing the call: the rows stay unsynced and
 * the sweep (sync-sweep-cron.ts) queues them again.
 */
export async function enqueueZoneSync(
  env: Env,
  jobs: readonly { zoneId: string; nodeId: string }[],
  afterFailure: boolean,
): Promise<void> {
  const delaySeconds = afterFailure ? backoffSeconds(1) : 0
  // A Queue batch holds at most 100 messages.
  for (let i = 0; i < jobs.length; i += 100) {
    const chunk = jobs.slice(i, i + 100)
    try {
      await env.JOBS.sendBatch(
        chunk.map(({ zoneId, nodeId }) => ({
          body: { type: 'dns.zone-sync' as const, zoneId, nodeId },
          delaySeconds,
        })),
      )
    } catch (error) {
      console.error(`could not queue ${chunk.length} zone-sync jobs; the sweep will retry them`, error)
    }
  }
}

export type FirstAnswer<T> = { ok: true; box: LiveBox; value: T } | { ok: false; error: string }

/** Reads from the synced boxes in turn and returns the first answer: any synced box holds the current zone. */
export async function readFromSynced<T>(
  boxes: readonly LiveBox[],
  read: (box: LiveBox) => Promise<T>,
): Promise<FirstAnswer<T>> {
  const errors: string[] = []
  for (const box of boxes.filter((b) => b.state === 'synced')) {
    try {
      return { ok: true, box, value: await read(box) }
    } catch (error) {
      errors.push(`${box.hostname}: ${errorText(error)}`)
    }
  }
  return { ok: false, error: errors.length ? errors.join('; ') : 'no nameserver box is synced for this zone' }
}

/** Like readFromSynced, but a zone nobody can read answers 502. */
export async function mustReadFromSynced<T>(
  boxes: readonly LiveBox[],
  read: (box: LiveBox) => Promise<T>,
): Promise<{ box: LiveBox; value: T }> {
  const answer = await readFromSynced(boxes, read)
  if (!answer.ok) throw new AppError('upstream_failed', `no nameserver box answered: ${answer.error}`)
  return answer
}
