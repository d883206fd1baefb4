import { BlockList, isIP } from 'node:net'

// The address ranges of the node's check rule (destination.ts): which an address is in, and the operator's
// allowed private ranges.

/** Why an address is never a check's destination, or `private` (allowed only inside `allowCidrs`). */
export type AddressKind = 'loopback' | 'unspecified' | 'link-local' | 'private'

const list = (entries: [string, number, 'ipv4' | 'ipv6'][]) => {
  const blocks = new BlockList()
  for (const [network, prefix, family] of entries) blocks.addSubnet(network, prefix, family)
  return blocks
}

const RANGES: [AddressKind, BlockList][] = [
  [
    'loopback',
    list([
      ['127.0.0.0', 8, 'ipv4'],
      ['::1', 128, 'ipv6'],
    ]),
  ],
  // 0.0.0.0/8 whole: Linux connects 0.0.0.0 to the machine itself.
  [
    'unspecified',
    list([
      ['0.0.0.0', 8, 'ipv4'],
      ['::', 128, 'ipv6'],
    ]),
  ],
  [
    'link-local',
    list([
      ['169.254.0.0', 16, 'ipv4'],
      ['fe80::', 10, 'ipv6'],
    ]),
  ],
  [
    'private',
    list([
      ['10.0.0.0', 8, 'ipv4'],
      ['172.16.0.0', 12, 'ipv4'],
      ['192.168.0.0', 16, 'ipv4'],
      ['100.64.0.0', 10, 'ipv4'],
      ['fc00::', 7, 'ipv6'],
    ]),
  ],
]

/**
 * An address without its IPv6 zone, and an IPv4-mapped IPv6 address (`::ffff:127.0.0.1`, `::ffff:7f00:1`) as
 * its IPv4 address; any other unchanged.
 */
export function unmapped(address: string): string {
  const bare = address.split('%')[0] ?? address
  if (isIP(bare) !== 6) return bare
  // The URL parser writes an IPv6 address in its one canonical form, where a mapped one is `::ffff:xxxx:xxxx`.
  const canonical = new URL(`http://[${bare}]/`).hostname.slice(1, -1)
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(canonical)
  if (!mapped?.[1] || !mapped[2]) return bare
  const high = Number.parseInt(mapped[1], 16)
  const low = Number.parseInt(mapped[2], 16)
  return [high >> 8, high & 255, low >> 8, low & 255].join('.')
}

const family = (address: string) => (isIP(address) === 4 ? 'ipv4' : 'ipv6')

/** The rule's kind of an address literal (IPv4-mapped read as IPv4), or null for any other address. */
export function addressKind(address: string): AddressKind | null {
  const plain = unmapped(address)
  for (const [kind, blocks] of RANGES) if (blocks.check(plain, family(plain))) return kind
  return null
}

/** `allowCidrs` as ranges; throws naming the first entry that is not `address/prefix`. */
export function allowedRanges(cidrs: readonly string[]): BlockList {
  const blocks = new BlockList()
  cidrs.forEach((cidr, index) => {
    const [network = '', prefixText = '', extra] = cidr.split('/')
    const version = isIP(network)
    const prefix = Number(prefixText)
    const max = version === 4 ? 32 : 128
    if (version === 0 || extra !== undefined || !/^\d{1,3}$/.test(prefixText) || prefix > max)
      throw new InvalidCidr(index, cidr)
    blocks.addSubnet(network, prefix, version === 4 ? 'ipv4' : 'ipv6')
  })
  return blocks
}

/** An `allowCidrs` entry that is not `address/prefix`, and its index in the list. */
export class InvalidCidr extends Error {
  readonly index: number

  constructor(index: number, cidr: string) {
    super(`${cidr} is not an address range (address/prefix)`)
    this.index = index
  }
}

/** Whether `ranges` holds the address (IPv4-mapped read as IPv4). */
export function inRanges(ranges: BlockList, address: string): boolean {
  const plain = unmapped(address)
  return ranges.check(plain, family(plain))
}
