import type { PlannedRecord } from '../custom-hostnames/planner'
import type { Db } from '../db/client'
import type { Env } from '../env'
import { caaVerdicts } from './caa'
import { dnssecVerdicts } from './dnssec'
import { readResolver } from './resolver-read'
import type { Diagnosis, ObservedSet, Verdict } from './schema'
import { judge } from './verdicts'
import { readZone, type WrittenZone } from './zone-read'

/** The shortest wait before an answer can change, whatever the TTLs say. */
export const MIN_NEXT_CHECK_MS = 30_000

/** A hostname to diagnose: its planned records and, where the panel writes its zone, that zone. */
export interface DiagnosisTarget {
  hostname: string
  expected: readonly PlannedRecord[]
  zone: WrittenZone | null
  /** The CA the node asks for the hostname's certificate (whose CAA permission the diagnosis checks). */
  issuer: () => Promise<'pebble' | 'letsencrypt'>
}

/** The planned records as a diagnosis shows them (`expected`). */
export const expectedOf = (records: readonly PlannedRecord[]): Diagnosis['expected'] =>
  records.map(({ type, name, value, ttl }) => ({ type, name, value, ttl }))

/** checkedAt plus the shortest TTL the resolver answered with, never less than 30 s. */
function nextCheckAfter(checkedAt: Date, resolver: ObservedSet): string {
  const shortest = Math.min(...resolver.records.map((record) => record.ttl * 1000))
  const wait = Number.isFinite(shortest) ? Math.max(MIN_NEXT_CHECK_MS, shortest) : MIN_NEXT_CHECK_MS
  return new Date(checkedAt.getTime() + wait).toISOString()
}

/**
 * Reads what the public resolver and (where the panel writes it) the zone hold for the hostname, and judges them
 * against the plan. Every read and every family of verdicts of a diagnosis starts here.
 */
export async function diagnose(db: Db, env: Env, target: DiagnosisTarget): Promise<Diagnosis> {
  const { hostname, zone } = target
  const [resolver, zoneView, caa, dnssec] = await Promise.all([
    readResolver(env.DOH_RESOLVER_URL, hostname),
    zone ? readZone(db, env, hostname, zone) : null,
    caaVerdicts(env.DOH_RESOLVER_URL, hostname, target.issuer),
    dnssecVerdicts(env.DOH_RESOLVER_URL, hostname),
  ])
  const judged = judge({
    hostname,
    expected: target.expected,
    resolver,
    zone: zone && zoneView ? { ...zoneView, zoneName: zone.zoneName, writeComing: zone.writeComing } : null,
  })
  // A zone whose signatures do not validate answers SERVFAIL: named as that, not as a resolver that failed.
  const verdicts: Verdict[] =
    dnssec.length > 0
      ? [...judged.filter((verdict) => verdict.kind !== 'resolver-failed'), ...dnssec]
      : // When the resolver gave nothing for the hostname, its CAA sets failing too says nothing more.
        [...judged, ...caa.filter((verdict) => !(resolver.error && verdict.kind === 'resolver-failed'))]
  const checkedAt = new Date()
  return {
    checkedAt: checkedAt.toISOString(),
    expected: expectedOf(target.expected),
    observed: zoneView ? [resolver, zoneView.set] : [resolver],
    verdicts,
    nextCheckAfter: nextCheckAfter(checkedAt, resolver),
  }
}

/** Whether the resolver answers every planned record as planned (what `dns.resolves` says). */
export function resolvesAsPlanned(diagnosis: Pick<Diagnosis, 'expected' | 'verdicts'>): boolean {
  return (
    diagnosis.expected.length > 0 &&
    diagnosis.expected.every((record) =>
      diagnosis.verdicts.some(
        (v) => v.kind === 'ok' && v.type === record.type && v.expected === record.value,
      ),
    )
  )
}

/**
 * What a status answers when the resolver took longer than the caller may wait: nothing judged, checked now
 * (an older answer, which may have been right, is never shown as fresh). The read goes on and is stored.
 */
export function unansweredDiagnosis(target: DiagnosisTarget, waitedMs: number, now = new Date()): Diagnosis {
  const resolver: ObservedSet = {
    source: 'resolver',
    readAt: now.toISOString(),
    rcode: null,
    error: `the resolver did not answer within ${waitedMs / 1000} s; the read goes on and the next call shows it`,
    records: [],
  }
  return {
    checkedAt: now.toISOString(),
    expected: expectedOf(target.expected),
    observed: [resolver],
    verdicts: judge({ hostname: target.hostname, expected: target.expected, resolver, zone: null }),
    nextCheckAfter: new Date(now.getTime() + MIN_NEXT_CHECK_MS).toISOString(),
  }
}
