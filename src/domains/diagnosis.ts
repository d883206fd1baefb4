import { desc, eq, sql } from 'drizzle-orm'
import { isZoneCandidate } from '../custom-hostnames/facts'
import type { ZoneWriter } from '../custom-hostnames/planner'
import { RESOLVES_CACHE_MS, RESOLVES_WAIT_MS } from '../custom-hostnames/resolves'
import type { Db } from '../db/client'
import { accountZones } from '../db/schema/accounts'
import { dnsZones } from '../db/schema/dns-servers'
import { domains } from '../db/schema/domains'
import { type DiagnosisTarget, diagnose, expectedOf, unansweredDiagnosis } from '../diagnosis/diagnose'
import type { Diagnosis } from '../diagnosis/schema'
import type { Env } from '../env'
import { type DomainRecord, sameGeneration } from './rows'

// The steps before the domain's DNS write: that write is still to come and creates what is missing.
const BEFORE_WRITE = new Set<DomainRecord['step']>(['driver-check', 'dns-write'])

// The zone's name, for the verdicts' words: the self-hosted zone, or the account's longest zone holding the name.
async function zoneNameOf(db: Db, row: DomainRecord, writerId: string): Promise<string> {
  if (row.driver === 'selfhosted') {
    const [zone] = await db.select({ name: dnsZones.name }).from(dnsZones).where(eq(dnsZones.id, writerId))
    return zone?.name ?? ''
  }
  const [zone] = await db
    .select({ name: accountZones.zoneName })
    .from(accountZones)
    .where(
      sql`${accountZones.accountId} = ${writerId} and ${isZoneCandidate(accountZones.zoneName, row.hostname)}`,
    )
    .orderBy(desc(sql`length(${accountZones.zoneName})`))
    .limit(1)
  return zone?.name ?? ''
}

/** What to diagnose for a domain: its plan and, unless manual, the zone the panel writes. */
export async function domainTarget(db: Db, row: DomainRecord): Promise<DiagnosisTarget> {
  const base = { hostname: row.hostname, expected: row.records, issuer: async () => row.issuer }
  if (row.driver === 'manual' || !row.writerId) return { ...base, zone: null }
  const writer: ZoneWriter =
    row.driver === 'selfhosted'
      ? { kind: 'hosted', zoneId: row.writerId }
      : { kind: 'connected', accountId: row.writerId }
  const own = row.written.map((record) => ({
    type: record.type,
    value: record.value,
    recordId: record.via === 'connected' ? record.recordId : null,
  }))
  return {
    ...base,
    zone: {
      writer,
      zoneName: await zoneNameOf(db, row, row.writerId),
      own: async () => own,
      writeComing: BEFORE_WRITE.has(row.step),
    },
  }
}

/** The write that keeps a diagnosis for the chain generation it was made for. */
export const storeDomainDiagnosis = (db: Db, row: DomainRecord, diagnosis: Diagnosis) =>
  db.update(domains).set({ diagnosis }).where(sameGeneration(row))

/**
 * The domain's diagnosis no older than the cache time and made for its current records. A fresh one is awaited
 * for at most a second; a slower resolver answers a diagnosis with nothing judged, checked now (never an older
 * one as fresh). The fresh one is stored in the background.
 */
export async function freshDomainDiagnosis(
  db: Db,
  env: Env,
  row: DomainRecord,
  waitUntil: (promise: Promise<unknown>) => void,
  now = Date.now(),
): Promise<Diagnosis> {
  const stored = row.diagnosis
  const samePlan = JSON.stringify(stored?.expected) === JSON.stringify(expectedOf(row.records))
  if (stored && samePlan && now - Date.parse(stored.checkedAt) < RESOLVES_CACHE_MS) return stored
  const target = await domainTarget(db, row)
  const lookup = diagnose(db, env, target)
  waitUntil(
    lookup
      .then((diagnosis) => storeDomainDiagnosis(db, row, diagnosis))
      .catch((error: unknown) => console.error(`storing the DNS diagnosis of ${row.hostname} failed`, error)),
  )
  const timeout = new Promise<null>((resolve) => setTimeout(() => resolve(null), RESOLVES_WAIT_MS))
  return (await Promise.race([lookup, timeout])) ?? unansweredDiagnosis(target, RESOLVES_WAIT_MS)
}
