import type { PlannedRecord } from '../custom-hostnames/planner'
import type { WrittenRecord } from '../db/schema/custom-hostnames'
import { type DnsDriver, DnsProviderError } from '../outside/dns-providers'

/** Rate limits and outages pass; a refused token, a missing zone or refused data needs a person. */
export function passingProviderError(error: DnsProviderError): boolean {
  return error.kind === 'rate_limited' || error.kind === 'unavailable'
}

export type ProviderWrite =
  | { kind: 'done'; written: WrittenRecord[]; detail: string }
  | { kind: 'transient'; error: string; retryAfterSeconds?: number }
  | { kind: 'failed'; error: string }

/**
 * Creates the planned records in the zone the account holds for the hostname, with `proxied` (provider_a only).
 * A record the provider already holds identically counts as present and is not the panel's to delete.
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
    const written: WrittenRecord[] = []
    for (const record of records) {
      try {
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
      } catch (error) {
        if (!(error instanceof DnsProviderError) || error.kind !== 'exists') throw error
      }
    }
    const present = records.length - written.length
    return {
      kind: 'done',
      written,
      detail: `${opened.label} holds ${records.map((r) => `${r.type} ${r.name} → ${r.value}`).join('; ')} in ${zone.name}${proxied ? ', proxied' : ''}${present ? ` (${present} already there)` : ''}`,
    }
  } catch (error) {
    if (!(error instanceof DnsProviderError)) throw error
    const text = `${opened.label}: ${error.message}`
    return passingProviderError(error)
      ? { kind: 'transient', error: text, retryAfterSeconds: error.retryAfterSeconds }
      : { kind: 'failed', error: text }
  }
}
