import { describeRecords } from '../custom-hostnames/outcome'
import type { PlannedRecord } from '../custom-hostnames/planner'
import type { WrittenRecord } from '../db/schema/custom-hostnames'
import { holds, recordsInTheWay } from '../dns-write/in-the-way'
import { type DnsDriver, DnsProviderError } from '../outside/dns-providers'

/** Rate limits and outages pass; a refused token, a missing zone or refused data needs a person. */
export function passingProviderError(error: DnsProviderError): boolean {
  // `exists`: a record appeared between the read and the create; the next attempt reads again.
  return error.kind === 'rate_limited' || error.kind === 'unavailable' || error.kind === 'exists'
}

export type ProviderWrite =
  | { kind: 'done'; written: WrittenRecord[]; detail: string }
  | { kind: 'transient'; error: string; retryAfterSeconds?: number }
  | { kind: 'failed'; error: string }

/**
 * Creates the planned records in the zone the account holds for the hostname, with `proxied` (provider_a only).
 * It reads the name first: a record the panel did not write that stands in the way fails the step naming it, and
 * one identical to a planned record counts as present and is not the panel's to delete.
 */
export async function writeProviderRecords(
  opened: { driver: DnsDriver; label: string },
  accountId: string,
  records: PlannedRecord[],
  proxied: boolean,
): Promise<ProviderWrite> {
  const hostname = records[0]?.name ?? ''
  try {
    const zone = await opened.driver.findZone(hostname)
    if (!zone) return { kind: 'failed', error: `${opened.label} holds no zone for ${hostname}` }
    const present = (await opened.driver.listRecords(zone, hostname)).map((r) => ({
      type: r.type,
      name: hostname,
      value: r.content,
    }))
    const inTheWay = recordsInTheWay(records, present)
    if (inTheWay.length > 0)
      return {
        kind: 'failed',
        error: `${hostname} already has records that the panel did not create (${describeRecords(inTheWay)}): remove them, then attach again`,
      }
    const written: WrittenRecord[] = []
    for (const record of records.filter((r) => !holds(present, r))) {
      const ref = await opened.driver.createRecord(zone, {
        type: record.type,
        name: record.name,
        content: record.value,
        ttl: record.ttl,
        ...(opened.driver.capabilities.proxy ? { proxied } : {}),
      })
      written.push({
        via: 'connected',
        accountId,
        zoneId: ref.zoneId,
        zoneName: zone.name,
        recordId: ref.recordId,
        ...record,
      })
    }
    const already = records.length - written.length
    return {
      kind: 'done',
      written,
      detail: `${opened.label} holds ${describeRecords(records)} in ${zone.name}${proxied ? ', proxied' : ''}${already ? ` (${already} already there, not written by the panel)` : ''}`,
    }
  } catch (error) {
    if (!(error instanceof DnsProviderError)) throw error
    const text = `${opened.label}: ${error.message}`
    return passingProviderError(error)
      ? { kind: 'transient', error: text, retryAfterSeconds: error.retryAfterSeconds }
      : { kind: 'failed', error: text }
  }
}
