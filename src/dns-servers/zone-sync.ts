import { PowerDnsError, type PowerDnsZone } from '../outside/powerdns'
import { absoluteName } from '../outside/powerdns-content'
import type { LiveBox } from './boxes'
import { copySigningKeys, signAt, unsignAt } from './dnssec'
import type { ZoneRecord } from './rows'
import { rrsetChanges } from './zone-diff'

/** The SOA a new zone starts with: the first nameserver as primary; PowerDNS rewrites the serial. */
export function initialSoa(zone: string, nameservers: readonly string[]): string {
  const primary = absoluteName(nameservers[0] ?? `ns1.${zone}`)
  return `${primary} hostmaster.${absoluteName(zone)} 0 10800 3600 604800 3600`
}

/** Creates the zone on a box; `created: false` when the box already had it (PowerDNS 409). */
export async function createOnBox(
  box: LiveBox,
  zone: string,
  nameservers: readonly string[],
): Promise<{ created: boolean }> {
  try {
    await box.client.createZone(zone, { nameservers: [...nameservers], soa: initialSoa(zone, nameservers) })
    return { created: true }
  } catch (error) {
    if (error instanceof PowerDnsError && error.kind === 'conflict') return { created: false }
    throw error
  }
}

async function zoneOn(box: LiveBox, zone: string, nameservers: readonly string[]): Promise<PowerDnsZone> {
  try {
    return await box.client.getZone(zone)
  } catch (error) {
    if (!(error instanceof PowerDnsError && error.kind === 'not_found')) throw error
  }
  await createOnBox(box, zone, nameservers)
  return box.client.getZone(zone)
}

function sameContent(a: PowerDnsZone, b: PowerDnsZone): boolean {
  return rrsetChanges(a.rrsets, b.rrsets).length === 0
}

/**
 * Brings one box to the zone's current content: creates the zone if it is missing, copies every record set
 * from `source` (a synced box) and its signing keys, then re-reads both and fails if they still differ (a
 * write landed meanwhile; the job retries). With no source (the zone's only box) it just creates the zone.
 */
export async function syncBox(
  zone: ZoneRecord,
  target: LiveBox,
  source: LiveBox | null,
  nameservers: readonly string[],
): Promise<void> {
  const current = await zoneOn(target, zone.name, nameservers)
  if (!source) {
    if (zone.dnssec) await signAt(target.client, zone.name)
    else await unsignAt(target.client, zone.name)
    return
  }
  const wanted = await source.client.getZone(zone.name)
  const changes = rrsetChanges(wanted.rrsets, current.rrsets)
  if (changes.length > 0) await target.client.patchRRsets(zone.name, changes)
  if (zone.dnssec) await copySigningKeys(source.client, target.client, zone.name)
  else await unsignAt(target.client, zone.name)
  const [after, reference] = await Promise.all([
    target.client.getZone(zone.name),
    source.client.getZone(zone.name),
  ])
  if (!sameContent(reference, after)) {
    throw new Error(`${source.hostname} changed while copying to ${target.hostname}; copying again`)
  }
}
