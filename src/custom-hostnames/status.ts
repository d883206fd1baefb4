import { and, eq, sql } from 'drizzle-orm'
import type { Db } from '../db/client'
import { customHostnames } from '../db/schema/custom-hostnames'
import { type DiagnosisTarget, diagnose, resolvesAsPlanned, unansweredDiagnosis } from '../diagnosis/diagnose'
import type { Diagnosis } from '../diagnosis/schema'
import type { Env } from '../env'
import { reconcileNodeOfHostname } from '../routes/reconcile-node'
import type { ZoneWriter } from './planner'
import { ownHostnameRecords } from './records-in-the-way'
import { RESOLVES_CACHE_MS, RESOLVES_WAIT_MS } from './resolves'
import { issuerFor } from './route'
import type { CustomHostnameRecord } from './rows'

/** A row with the diagnosis its DNS check made. */
export type CheckedRecord = CustomHostnameRecord & { dnsDiagnosis: Diagnosis }

export interface Looked {
  resolves: boolean
  dnsCheckedAt: Date
  diagnosis: Diagnosis
}

/** What to diagnose for a row: its plan and, when the panel writes its zone, that zone (written soon if pending). */
export function hostnameTarget(db: Db, row: CustomHostnameRecord): DiagnosisTarget {
  const writer: ZoneWriter | null =
    row.writerKind === 'hosted' && row.writerId
      ? { kind: 'hosted', zoneId: row.writerId }
      : row.writerKind === 'connected' && row.writerId
        ? { kind: 'connected', accountId: row.writerId }
        : null
  return {
    hostname: row.hostname,
    expected: row.records,
    issuer: () => issuerFor(db, row.siteId),
    zone: writer && {
      writer,
      zoneName: row.zoneName,
      own: ownHostnameRecords(db, row.hostname, writer),
      writeComing: row.state === 'pending',
    },
  }
}

/** Reads DNS for the row now, bypassing any stored answer. */
export async function lookUp(db: Db, env: Env, row: CustomHostnameRecord): Promise<Looked> {
  const diagnosis = await diagnose(db, env, hostnameTarget(db, row))
  return { diagnosis, resolves: resolvesAsPlanned(diagnosis), dnsCheckedAt: new Date(diagnosis.checkedAt) }
}

/**
 * The write that stores a lookup for the registration it was made for (a register again may have planned other
 * records meanwhile); it returns the row's dnsResolvedAt, for `firstResolved`.
 */
export function storeLookupWrite(db: Db, row: CustomHostnameRecord, looked: Looked) {
  const { resolves, dnsCheckedAt, diagnosis } = looked
  return db
    .update(customHostnames)
    .set({
      dnsResolves: resolves,
      dnsCheckedAt,
      dnsDiagnosis: diagnosis,
      ...(resolves
        ? { dnsResolvedAt: sql`coalesce(${customHostnames.dnsResolvedAt}, ${dnsCheckedAt.getTime()})` }
        : {}),
    })
    .where(and(eq(customHostnames.id, row.id), eq(customHostnames.generation, row.generation)))
    .returning({ dnsResolvedAt: customHostnames.dnsResolvedAt })
}

/** Whether the stored lookup was the first that saw the records resolve (`storeLookupWrite`'s answer). */
export function firstResolved(
  row: CustomHostnameRecord,
  looked: Looked,
  stored: readonly { dnsResolvedAt: Date | null }[],
): boolean {
  return row.dnsResolvedAt === null && stored[0]?.dnsResolvedAt?.getTime() === looked.dnsCheckedAt.getTime()
}

/**
 * Stores a lookup for the row; the first that sees the records resolve pushes the node's edge state again (the
 * hostname became issuable).
 */
export async function storeDnsCheck(
  db: Db,
  env: Env,
  row: CustomHostnameRecord,
  looked: Looked,
): Promise<void> {
  if (firstResolved(row, looked, await storeLookupWrite(db, row, looked)))
    await reconcileNodeOfHostname(env, db, row.hostname)
}

/** The row as the store leaves it (the first time the records resolve is kept). */
export function withLookup(row: CustomHostnameRecord, looked: Looked): CheckedRecord {
  const { resolves, dnsCheckedAt, diagnosis } = looked
  const dnsResolvedAt = row.dnsResolvedAt ?? (resolves ? dnsCheckedAt : null)
  return { ...row, dnsResolves: resolves, dnsCheckedAt, dnsResolvedAt, dnsDiagnosis: diagnosis }
}

/**
 * The row with a DNS answer no older than the cache time. A fresh lookup is awaited for at most a second; a
 * slower resolver shows `resolves: false` and a diagnosis with nothing judged, checked now (never an older
 * answer, which may have been true). The answer is stored in the background, off the caller's path; the first
 * answer that sees the planned records resolve makes the hostname issuable, so the node's edge state is pushed
 * again.
 */
export async function withFreshDnsCheck(
  db: Db,
  env: Env,
  row: CustomHostnameRecord,
  waitUntil: (promise: Promise<unknown>) => void,
  now = Date.now(),
): Promise<CheckedRecord> {
  const { dnsCheckedAt, dnsDiagnosis } = row
  if (dnsCheckedAt && dnsDiagnosis && now - dnsCheckedAt.getTime() < RESOLVES_CACHE_MS)
    return { ...row, dnsDiagnosis }
  const lookup = lookUp(db, env, row)
  waitUntil(
    lookup
      .then((looked) => storeDnsCheck(db, env, row, looked))
      .catch((error: unknown) => console.error(`storing the DNS check of ${row.hostname} failed`, error)),
  )
  const timeout = new Promise<null>((resolve) => setTimeout(() => resolve(null), RESOLVES_WAIT_MS))
  const looked = await Promise.race([lookup, timeout])
  if (looked) return withLookup(row, looked)
  const diagnosis = unansweredDiagnosis(hostnameTarget(db, row), RESOLVES_WAIT_MS)
  return { ...row, dnsResolves: false, dnsCheckedAt: new Date(diagnosis.checkedAt), dnsDiagnosis: diagnosis }
}
