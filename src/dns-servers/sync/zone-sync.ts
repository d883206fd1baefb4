import { absoluteName } from '../../lib/dns-name'
import { PowerDnsError, type PowerDnsZone } from '../../outside/powerdns'
import { copySigningKeys, signAt, unsignAt } from '../dnssec/dnssec'
import type { LiveBox } from '../nameservers/box-clients'
import { apexNameservers, nameserverChange } from '../records/records'
import type { ZoneRecord } from '../rows'
import { rrsetChanges } from '../zones/diff'

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

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const [x, y] = [[...a].sort(), [...b].sort()]
  return x.length === y.length && x.every((value, i) => value === y[i])
}

/**
 * Fails unless `target` now serves what `source` serves: the record sets (SOA aside) and the DNSKEY set. A
 * change that landed on the source while copying makes them differ, and the job copies again.
 */
async function assertSameContent(zone: string, target: LiveBox, source: LiveBox): Promise<void> {
  const [after, reference] = await Promise.all([target.client.getZone(zone), source.client.getZone(zone)])
  if (rrsetChanges(reference.rrsets, after.rrsets).length > 0) {
    throw new Error(`${source.hostname} changed while copying to ${target.hostname}; copying again`)
  }
  const [targetKeys, sourceKeys] = await Promise.all([
    target.client.listCryptokeys(zone),
    source.client.listCryptokeys(zone),
  ])
  const dnskeys = (keys: typeof targetKeys) => keys.map((key) => key.dnskey.replace(/\s+/g, ''))
  if (!sameSet(dnskeys(targetKeys), dnskeys(sourceKeys))) {
    throw new Error(`${target.hostname} does not sign with the keys of ${source.hostname} yet; copying again`)
  }
}

/**
 * Brings `target` to what `source` (a synced box) serves: creates the zone if it is missing, patches every
 * record set that differs (`wanted` is the source's zone, just read), copies the signing keys or turns signing
 * off, then compares both again.
 */
export async function copyZone(
  zone: ZoneRecord,
  target: LiveBox,
  source: LiveBox,
  wanted: PowerDnsZone,
  nameservers: readonly string[],
): Promise<void> {
  const current = await zoneOn(target, zone.name, nameservers)
  const changes = rrsetChanges(wanted.rrsets, current.rrsets)
  if (changes.length > 0) await target.client.patchRRsets(zone.name, changes)
  if (zone.dnssec) await copySigningKeys(source.client, target.client, zone.name)
  else await unsignAt(target.client, zone.name)
  await assertSameContent(zone.name, target, source)
}

/**
 * Readies `target`, whose records are current, to be the zone's reference: it must still hold the zone (it is
 * never created empty here), gets the panel's NS set if it missed a change of it, and signs or not as the zone
 * says.
 */
export async function readyAsReference(
  zone: ZoneRecord,
  target: LiveBox,
  nameservers: readonly string[],
): Promise<void> {
  const held = await target.client.getZone(zone.name)
  if (!sameSet(apexNameservers(held.rrsets, zone.name), nameservers)) {
    await target.client.patchRRsets(zone.name, [nameserverChange(zone.name, nameservers)])
  }
  if (zone.dnssec) await signAt(target.client, zone.name)
  else await unsignAt(target.client, zone.name)
}
