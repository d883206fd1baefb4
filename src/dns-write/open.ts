import { eq } from 'drizzle-orm'
import type { Db } from '../db/client'
import { accounts } from '../db/schema/accounts'
import { isDnsProvider } from '../dns-accounts/providers'
import { type LiveBox, liveBoxes } from '../dns-servers/nameservers/box-clients'
import { findZone, type ZoneRecord, zoneBoxEntries } from '../dns-servers/rows'
import type { Env } from '../env'
import { openSecret } from '../lib/secrets'
import { DNS_PROVIDER_LABELS, type DnsDriver, dnsDriver } from '../outside/dns-providers'

// Where custom hostnames and domains write their records: a self-hosted zone's boxes, or a DNS account's driver.

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
