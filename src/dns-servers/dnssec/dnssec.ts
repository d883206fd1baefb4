import type { PowerDnsClient } from '../../outside/powerdns'

/**
 * Makes `target` sign with exactly the keys of `source`, so every box publishes the same DNSKEY and one DS
 * at the registrar fits them all. Private keys go from box to box and are never stored by the panel.
 */
export async function copySigningKeys(
  source: PowerDnsClient,
  target: PowerDnsClient,
  zone: string,
): Promise<void> {
  const [wanted, present] = await Promise.all([source.listCryptokeys(zone), target.listCryptokeys(zone)])
  const presentKeys = new Set(present.map((key) => key.dnskey))
  for (const key of wanted) {
    if (presentKeys.has(key.dnskey)) continue
    const full = await source.getCryptokey(zone, key.id)
    if (!full.privatekey) throw new Error(`PowerDNS did not hand out the private part of key ${key.id}`)
    await target.importCryptokey(zone, {
      keytype: key.keytype,
      active: key.active,
      published: key.published,
      content: full.privatekey,
    })
  }
  const wantedKeys = new Set(wanted.map((key) => key.dnskey))
  for (const key of present) {
    if (!wantedKeys.has(key.dnskey)) await target.deleteCryptokey(zone, key.id)
  }
  await target.rectify(zone)
}

/** Turns signing on at one box (PowerDNS makes the key) and rectifies; the key source for the others. */
export async function signAt(box: PowerDnsClient, zone: string): Promise<void> {
  const current = await box.getZone(zone)
  if (!current.dnssec) await box.setDnssec(zone, true)
  await box.rectify(zone)
}

/** Turns signing off at one box; PowerDNS deletes the zone's keys. */
export async function unsignAt(box: PowerDnsClient, zone: string): Promise<void> {
  const current = await box.getZone(zone)
  if (current.dnssec) await box.setDnssec(zone, false)
}

/** DS digest types worth giving a registrar: SHA-256 (2) and SHA-384 (4); SHA-1 (1) is deprecated. */
export const DS_DIGEST_TYPES: ReadonlySet<number> = new Set([2, 4])

export interface DsEntry {
  keyTag: number
  algorithm: number
  digestType: number
  digest: string
}

/** Parses PowerDNS's `"<tag> <alg> <digest type> <hex>"` DS text, or null when it is not one. */
export function parseDs(text: string): DsEntry | null {
  const match = /^(\d+)\s+(\d+)\s+(\d+)\s+([0-9a-fA-F\s]+)$/.exec(text.trim())
  if (!match?.[1] || !match[2] || !match[3] || !match[4]) return null
  return {
    keyTag: Number(match[1]),
    algorithm: Number(match[2]),
    digestType: Number(match[3]),
    digest: match[4].replace(/\s+/g, '').toLowerCase(),
  }
}

/** The canonical one-line form used to compare DS records from different sources. */
export function dsText(ds: DsEntry): string {
  return `${ds.keyTag} ${ds.algorithm} ${ds.digestType} ${ds.digest}`
}
