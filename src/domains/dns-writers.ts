import { eq } from 'drizzle-orm'
import type { PlannedRecord } from '../custom-hostnames/planner'
import type { Db } from '../db/client'
import { accounts } from '../db/schema/accounts'
import type { WrittenRecord } from '../db/schema/custom-hostnames'
import { isDnsProvider } from '../dns-accounts/providers'
import { type LiveBox, liveBoxes } from '../dns-servers/box-clients'
import { findZone, type ZoneRecord, zoneBoxEntries } from '../dns-servers/rows'
import type { Env } from '../env'
import { openSecret } from '../lib/secrets'
import { DNS_PROVIDER_LABELS, type DnsDriver, DnsProviderError, dnsDriver } from '../outside/dns-providers'

/** A self-hosted zone and its boxes with PowerDNS, or why the zone cannot be written. */
export async function openHostedZone(
  database: Db,
  env: Env,
  zoneId: string,
): Promise<{ zone: ZoneRecord; boxes: LiveBox[] } | string> {
  const zone = await findZone(database, zoneId)
  if (!zone) return 'the zone is no longer on the self-hosted nameservers'
  const boxes = await liveBoxes(env, await zoneBoxEntries(database, zone.id))
  if (boxes.length === 0) return `no nameserver box with PowerDNS serves ${zone.name}`
  return { zone, boxes }
}

/** A DNS account's driver and how messages name it, or why it cannot be used. */
export async function openProvider(
  database: Db,
  env: Env,
  accountId: string,
): Promise<{ driver: DnsDriver; label: string } | string> {
  const [account] = await database.select().from(accounts).where(eq(accounts.id, accountId))
  if (!account || !isDnsProvider(account.provider)) return 'the DNS account was removed'
  const token = await openSecret(env, account.tokenSealed)
  return {
    driver: dnsDriver(account.provider, { token, apiBaseUrl: account.apiBaseUrl }),
    label: `${DNS_PROVIDER_LABELS[account.provider]} account "${account.name}"`,
  }
}

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
