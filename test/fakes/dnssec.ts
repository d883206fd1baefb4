// DNSSEC arithmetic from RFC 4034 (key tag, DS digest), written independently of the panel, so tests can check
// that a DS handed out for a registrar really belongs to the DNSKEY a box serves.

function base64ToBytes(text: string): Uint8Array {
  return Uint8Array.from(atob(text.replace(/\s+/g, '')), (c) => c.charCodeAt(0))
}

function hex(bytes: ArrayBuffer): string {
  return [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, '0')).join('')
}

/** The owner name in canonical wire form: lowercase length-prefixed labels, then the root. */
export function nameWire(name: string): Uint8Array {
  const labels = name.toLowerCase().replace(/\.$/, '').split('.').filter(Boolean)
  const out: number[] = []
  for (const label of labels) out.push(label.length, ...new TextEncoder().encode(label))
  out.push(0)
  return Uint8Array.from(out)
}

/** The DNSKEY RDATA for `"<flags> <protocol> <algorithm> <base64 key>"` (dig may split the key with spaces). */
export function dnskeyRdata(text: string): Uint8Array {
  const [flags, protocol, algorithm, ...key] = text.trim().split(/\s+/)
  const publicKey = base64ToBytes(key.join(''))
  const rdata = new Uint8Array(4 + publicKey.length)
  const flagValue = Number(flags)
  rdata.set([flagValue >> 8, flagValue & 0xff, Number(protocol), Number(algorithm)])
  rdata.set(publicKey, 4)
  return rdata
}

/** RFC 4034 appendix B key tag. */
export function keyTag(rdata: Uint8Array): number {
  let sum = 0
  rdata.forEach((byte, i) => {
    sum += i & 1 ? byte : byte << 8
  })
  sum += (sum >> 16) & 0xffff
  return sum & 0xffff
}

const DIGESTS: Record<number, string> = { 1: 'SHA-1', 2: 'SHA-256', 4: 'SHA-384' }

/** The DS text `"<tag> <alg> <digest type> <hex>"` of a DNSKEY for `owner`. */
export async function dsFor(owner: string, dnskey: string, digestType: number): Promise<string> {
  const rdata = dnskeyRdata(dnskey)
  const wire = nameWire(owner)
  const input = new Uint8Array(wire.length + rdata.length)
  input.set(wire)
  input.set(rdata, wire.length)
  const algorithm = DIGESTS[digestType]
  if (!algorithm) throw new Error(`unsupported digest type ${digestType}`)
  const digest = hex(await crypto.subtle.digest(algorithm, input))
  return `${keyTag(rdata)} ${rdata[3]} ${digestType} ${digest}`
}
