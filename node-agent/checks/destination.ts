import { lookup } from 'node:dns/promises'
import { isIP } from 'node:net'
import { networkInterfaces } from 'node:os'
import { type AddressKind, addressKind, allowedRanges, inRanges, unmapped } from './address-ranges.ts'

// The node's destination rule: where an http, tcp or cert check may connect. A probe located on a node is set
// by anyone holding probes:manage, so its target must not turn the node against itself (its loopback, Caddy's
// admin API, the agent), its cloud's metadata service or, unless the node's operator allowed a range, the
// private network behind it.

/** A destination the rule passed: the one address the check connects to (never resolved again). */
export type Vetted = { address: string } | { problem: string }

/** Vets a check's host (a name or an address literal, IPv6 without brackets) and port within `timeoutMs`. */
export type Vet = (host: string, port: number, timeoutMs: number) => Promise<Vetted>

/** All the addresses of a name. */
export type Resolve = (name: string) => Promise<string[]>

/** One of the agent's own listeners; host `''`, `0.0.0.0` or `::` is every address of this machine. */
export interface OwnEndpoint {
  what: string
  host: string
  port: number
}

// Names of cloud metadata services (GCE, AWS, Equinix Metal, Tencent); their addresses are link-local or
// private already, but a name some resolver answers differently is refused before it is looked up.
const METADATA_NAMES = new Set([
  'metadata',
  'metadata.google.internal',
  'metadata.goog',
  'instance-data',
  'instance-data.ec2.internal',
  'metadata.platformequinix.com',
  'metadata.packet.net',
  'metadata.tencentyun.com',
])

const SELF = "a node's checks never reach the node itself"

const WHY: Record<AddressKind, string> = {
  loopback: `a loopback address; ${SELF}`,
  unspecified: `an unspecified address, which is the node itself; ${SELF}`,
  'link-local': "a link-local address, where cloud metadata answers; a node's checks never reach it",
  private: "a private address outside this node's allowed ranges (checkAllowCidrs)",
}

const systemResolve: Resolve = async (name) =>
  (await lookup(name, { all: true, verbatim: true })).map((entry) => entry.address)

const WILDCARDS = new Set(['', '0.0.0.0', '::'])

function localAddresses(): string[] {
  return Object.values(networkInterfaces()).flatMap((entries) =>
    (entries ?? []).map((entry) => entry.address),
  )
}

function ownEndpoint(own: readonly OwnEndpoint[], address: string, port: number): OwnEndpoint | undefined {
  const plain = unmapped(address)
  return own.find(
    (endpoint) =>
      endpoint.port === port &&
      (WILDCARDS.has(endpoint.host) ? localAddresses().includes(plain) : unmapped(endpoint.host) === plain),
  )
}

async function resolveWithin(resolve: Resolve, name: string, timeoutMs: number): Promise<string[] | string> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<string>((settle) => {
    timer = setTimeout(() => settle(`could not resolve ${name} within ${timeoutMs} ms`), timeoutMs)
  })
  const found = resolve(name).catch((error: unknown) => {
    const code = error instanceof Error && 'code' in error ? String(error.code) : String(error)
    return `could not resolve ${name}: ${code}`
  })
  try {
    return await Promise.race([found, late])
  } finally {
    clearTimeout(timer)
  }
}

/**
 * The rule for one check: every address the host resolves to must pass, and the check connects to the first.
 * Refused: loopback, unspecified and link-local addresses (IPv4-mapped too), a private address outside
 * `allowCidrs`, a metadata service's name, and the agent's own listeners.
 */
export function destinationRule(options: {
  own: readonly OwnEndpoint[]
  allowCidrs: readonly string[]
  resolve?: Resolve
}): Vet {
  const allowed = allowedRanges(options.allowCidrs)
  const resolve = options.resolve ?? systemResolve
  return async (host, port, timeoutMs) => {
    const name = host.toLowerCase().replace(/\.$/, '')
    if (METADATA_NAMES.has(name))
      return { problem: `refused: ${host} is a cloud metadata service; a node's checks never reach it` }
    const literal = isIP(host) !== 0
    const addresses = literal ? [host] : await resolveWithin(resolve, host, timeoutMs)
    if (typeof addresses === 'string') return { problem: addresses }
    if (addresses.length === 0) return { problem: `could not resolve ${host}: no addresses` }
    const subject = (address: string) => (literal ? `${host} is` : `${host} resolves to ${address},`)
    for (const address of addresses) {
      const kind = addressKind(address)
      if (kind && !(kind === 'private' && inRanges(allowed, address)))
        return { problem: `refused: ${subject(address)} ${WHY[kind]}` }
      const own = ownEndpoint(options.own, address, port)
      if (own) {
        const where = literal
          ? `${host} port ${port} is`
          : `${host} resolves to ${address}, and port ${port} there is`
        return { problem: `refused: ${where} ${own.what}; ${SELF}` }
      }
    }
    return { address: addresses[0] as string }
  }
}
