// IP addresses as numbers, and CIDR ranges over them: enough to say whether an address lies in a range.

/** An address: its family and its bits (32 for IPv4, 128 for IPv6). */
export interface Address {
  version: 4 | 6
  bits: bigint
}

/** A range: the network's address (no bits set past the prefix) and the prefix length. */
export interface Cidr {
  network: Address
  prefix: number
}

const width = (version: 4 | 6) => (version === 4 ? 32 : 128)

function parseIpv4(text: string): bigint | null {
  const parts = text.split('.')
  if (parts.length !== 4 || !parts.every((part) => /^(0|[1-9]\d{0,2})$/.test(part))) return null
  const octets = parts.map(Number)
  if (octets.some((octet) => octet > 255)) return null
  return octets.reduce((bits, octet) => (bits << 8n) | BigInt(octet), 0n)
}

/** The URL parser's spelling of an IPv6 address (lowercase, `::` compressed, no dotted tail), or null. */
function canonicalIpv6(text: string): string | null {
  if (!/^[0-9a-fA-F:.]+$/.test(text) || !URL.canParse(`http://[${text}]/`)) return null
  return new URL(`http://[${text}]/`).hostname.slice(1, -1)
}

function parseIpv6(text: string): bigint | null {
  const canonical = canonicalIpv6(text)
  if (canonical === null) return null
  const [left = '', right] = canonical.split('::')
  const head = left === '' ? [] : left.split(':')
  const tail = right === undefined || right === '' ? [] : right.split(':')
  const groups = [...head, ...Array<string>(8 - head.length - tail.length).fill('0'), ...tail]
  return groups.reduce((bits, group) => (bits << 16n) | BigInt(Number.parseInt(group, 16)), 0n)
}

/** Parses a dotted IPv4 or an IPv6 address, with or without brackets; null when it is neither. */
export function parseAddress(text: string): Address | null {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text
  const v4 = parseIpv4(bare)
  if (v4 !== null) return { version: 4, bits: v4 }
  const v6 = bare.includes(':') ? parseIpv6(bare) : null
  return v6 === null ? null : { version: 6, bits: v6 }
}

/** Whether `address` lies in `cidr` (never across families). */
export function inCidr(address: Address, cidr: Cidr): boolean {
  if (address.version !== cidr.network.version) return false
  const shift = BigInt(width(address.version) - cidr.prefix)
  return address.bits >> shift === cidr.network.bits >> shift
}

/** Whether `inner` lies wholly inside `outer`. */
export function cidrWithin(inner: Cidr, outer: Cidr): boolean {
  return inner.prefix >= outer.prefix && inCidr(inner.network, outer)
}

/** Parses `address/prefix`; the reason as a string when it is not one, or sets bits past its prefix. */
export function parseCidr(text: string): Cidr | string {
  const [address, prefixText, extra] = text.split('/')
  const network = address === undefined ? null : parseAddress(address)
  if (network === null || prefixText === undefined || extra !== undefined || !/^\d{1,3}$/.test(prefixText))
    return 'is not a CIDR range (address/prefix, such as 10.0.0.0/8 or fd00::/8)'
  const prefix = Number(prefixText)
  if (prefix > width(network.version))
    return `has a prefix longer than ${width(network.version)} bits, which an IPv${network.version} address has`
  const extraBits = hostBits({ network, prefix })
  if (extraBits === 0n) return { network, prefix }
  const start = formatCidr({ network: { ...network, bits: network.bits - extraBits }, prefix })
  return `sets address bits past its /${prefix} prefix (the range is ${start})`
}

function hostBits({ network, prefix }: Cidr): bigint {
  const hostWidth = BigInt(width(network.version) - prefix)
  return network.bits & ((1n << hostWidth) - 1n)
}

/** The canonical text of an address: dotted IPv4, or IPv6 as the URL parser writes it (no brackets). */
export function formatAddress({ version, bits }: Address): string {
  if (version === 4) return [24n, 16n, 8n, 0n].map((shift) => (bits >> shift) & 255n).join('.')
  const groups = [112n, 96n, 80n, 64n, 48n, 32n, 16n, 0n].map((shift) =>
    ((bits >> shift) & 0xffffn).toString(16),
  )
  return canonicalIpv6(groups.join(':')) ?? groups.join(':')
}

export const formatCidr = (cidr: Cidr) => `${formatAddress(cidr.network)}/${cidr.prefix}`

/** Parses a CIDR known to be valid (a constant of the code). */
export function cidr(text: string): Cidr {
  const parsed = parseCidr(text)
  if (typeof parsed === 'string') throw new Error(`${text} ${parsed}`)
  return parsed
}

// IPv6 forms that carry an IPv4 address in their low 32 bits, which a host may connect to as that IPv4 address:
// IPv4-mapped (::ffff:0:0/96), IPv4-compatible (::/96, deprecated), IPv4-translated (::ffff:0:0:0/96) and the
// NAT64 well-known prefix (64:ff9b::/96).
const EMBEDDING_IPV4 = ['::ffff:0:0/96', '::/96', '::ffff:0:0:0/96', '64:ff9b::/96'].map(cidr)

/** The IPv4 address an IPv6 address embeds (see EMBEDDING_IPV4), or null; `::` and `::1` embed none. */
export function embeddedIpv4(address: Address): Address | null {
  if (address.version !== 6 || address.bits <= 1n) return null
  if (!EMBEDDING_IPV4.some((range) => inCidr(address, range))) return null
  return { version: 4, bits: address.bits & 0xffffffffn }
}
