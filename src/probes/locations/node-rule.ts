import {
  type Cidr,
  cidr,
  cidrWithin,
  embeddedIpv4,
  formatCidr,
  inCidr,
  parseAddress,
  parseCidr,
} from '../../lib/cidr'
import { invalid } from '../../rpc/errors'
import { type HostPort, parseHostPort } from '../checks/target'
import type { ProbeConfig, ProbeType } from '../config'

// The node rule: what a check located on a node may reach from inside the node's network. The edge's outbound
// rule does not apply there (a node checks what the edge cannot, on purpose), but probes:manage must not turn a
// node against itself: Caddy's admin API on 127.0.0.1:2019, the agent, the cloud's metadata service. Private
// ranges open per node, by whoever holds fleet:manage (the node's checkAllowCidrs). A host name passes here: the
// agent vets the addresses it resolves to when the check runs.

/** What of a node the rule reads. */
export interface NodeScope {
  name: string
  agentUrl: string
  agentHostname: string | null
  checkAllowCidrs: readonly string[]
}

/** A check the node rule refuses: the input field to name, and why. */
export interface NodeRefusal {
  field: 'target' | 'config.method'
  problem: string
}

// Never reachable from a node, whatever its checkAllowCidrs say. Besides link-local (where most clouds serve
// metadata, 169.254.169.254), the metadata addresses outside it: Alibaba Cloud's, Oracle Cloud's legacy one,
// Azure's platform address (its IMDS documentation asks to treat it as 169.254.169.254), and AWS's IPv6 endpoint
// (inside fc00::/7: found here before the private ranges are looked at).
const NEVER: readonly (readonly [Cidr, string])[] = [
  [cidr('127.0.0.0/8'), 'a loopback address'],
  [cidr('::1/128'), 'a loopback address'],
  [cidr('0.0.0.0/8'), 'an unspecified address (the node itself)'],
  [cidr('::/128'), 'an unspecified address (the node itself)'],
  [cidr('169.254.0.0/16'), 'a link-local address (cloud metadata lives there)'],
  [cidr('fe80::/10'), 'a link-local address'],
  [cidr('100.100.100.200/32'), 'a cloud metadata address'],
  [cidr('192.0.0.192/32'), 'a cloud metadata address'],
  [cidr('168.63.129.16/32'), 'a cloud metadata address'],
  [cidr('fd00:ec2::254/128'), 'a cloud metadata address'],
]

/**
 * The ranges a node's checkAllowCidrs may open: RFC 1918, unique-local IPv6, and RFC 6598's shared space, which
 * is no carrier's only: Tailscale and several clouds number private networks in it.
 */
export const PRIVATE_RANGES = [
  '10.0.0.0/8',
  '172.16.0.0/12',
  '192.168.0.0/16',
  '100.64.0.0/10',
  'fc00::/7',
].map(cidr)

// Names the cloud providers document for their instance metadata service: GCE (metadata.google.internal, and
// the short name its resolver search path completes), EC2 (instance-data), Tencent Cloud and Equinix Metal. Azure,
// DigitalOcean, Hetzner and OpenStack document only the address.
const METADATA_NAMES = new Set([
  'metadata.google.internal',
  'metadata',
  'instance-data',
  'instance-data.ec2.internal',
  'metadata.tencentyun.com',
  'metadata.platformequinix.com',
  'metadata.packet.net',
])

const MAX_ALLOW_CIDRS = 64

/** Where a check of `type` connects; null for dns (a lookup through the node's resolver, no connection). */
function destination(type: ProbeType, target: string): HostPort | null | 'unreadable' {
  switch (type) {
    case 'http': {
      if (!URL.canParse(target)) return 'unreadable'
      const url = new URL(target)
      return { host: url.hostname, port: url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80 }
    }
    case 'tcp':
      return parseHostPort(target) ?? 'unreadable'
    case 'cert':
      return parseHostPort(target, 443) ?? 'unreadable'
    case 'dns':
    case 'heartbeat':
      return null
  }
}

/** A host as compared: lowercase, without a final dot. */
const sameHost = (host: string) => host.toLowerCase().replace(/\.$/, '')

function allowedRanges(node: NodeScope): Cidr[] {
  return node.checkAllowCidrs.map(parseCidr).filter((range): range is Cidr => typeof range !== 'string')
}

/** Why `host` (an address or a name) is out of the node's reach, or null. */
function hostProblem(host: string, node: NodeScope): string | null {
  const parsed = parseAddress(host)
  if (parsed === null) {
    const name = sameHost(host)
    if (name === 'localhost' || name.endsWith('.localhost')) return `${host} is a loopback name`
    return METADATA_NAMES.has(name) ? `${host} is a cloud metadata name` : null
  }
  // An IPv6 form that carries an IPv4 address is judged as that address.
  const address = embeddedIpv4(parsed) ?? parsed
  const never = NEVER.find(([range]) => inCidr(address, range))
  if (never) return `${host} is ${never[1]}`
  if (!PRIVATE_RANGES.some((range) => inCidr(address, range))) return null
  if (allowedRanges(node).some((range) => inCidr(address, range))) return null
  return `${host} is a private address, which node ${node.name}'s checkAllowCidrs does not open (fleet:manage sets it)`
}

/** Why the target is the node's own agent: its agentUrl's host and port, or any port of its agentHostname. */
function agentProblem({ host, port }: HostPort, node: NodeScope): string | null {
  if (node.agentHostname !== null && sameHost(host) === node.agentHostname)
    return `${host} is node ${node.name}'s own agent hostname`
  const agent = new URL(node.agentUrl)
  const agentPort = agent.port ? Number(agent.port) : agent.protocol === 'https:' ? 443 : 80
  if (sameHost(host) === sameHost(agent.hostname) && port === agentPort)
    return `${host}:${port} is node ${node.name}'s own agent`
  return null
}

/** Why the node may not run this check (its target, or an http method other than GET and HEAD), or null. */
export function nodeCheckRefusal(
  probe: { type: ProbeType; target: string; config: ProbeConfig },
  node: NodeScope,
): NodeRefusal | null {
  const place = destination(probe.type, probe.target)
  if (place === 'unreadable')
    return { field: 'target', problem: `${probe.target} is not a target a node checks` }
  const problem = place && (hostProblem(place.host, node) ?? agentProblem(place, node))
  if (problem) return { field: 'target', problem }
  if ('method' in probe.config && probe.config.method === 'POST')
    return { field: 'config.method', problem: 'a check from a node sends GET or HEAD only, not POST' }
  return null
}

/** 400 naming the field when any of the nodes may not run the check. */
export function assertNodesMayCheck(
  probe: { type: ProbeType; target: string; config: ProbeConfig },
  nodes: readonly NodeScope[],
): void {
  for (const node of nodes) {
    const refusal = nodeCheckRefusal(probe, node)
    if (refusal) throw invalid(refusal.field, `node ${node.name} may not run this check: ${refusal.problem}`)
  }
}

/** A node's checkAllowCidrs, each a range inside a private one, in canonical form; 400 naming the field otherwise. */
export function parseAllowCidrs(list: readonly string[]): string[] {
  if (list.length > MAX_ALLOW_CIDRS)
    throw invalid('checkAllowCidrs', `holds at most ${MAX_ALLOW_CIDRS} ranges`)
  return list.map((text) => {
    const range = parseCidr(text)
    if (typeof range === 'string') throw invalid('checkAllowCidrs', `${text} ${range}`)
    if (!PRIVATE_RANGES.some((outer) => cidrWithin(range, outer)))
      throw invalid(
        'checkAllowCidrs',
        `${text} is not inside a private range (${PRIVATE_RANGES.map(formatCidr).join(', ')}): public addresses need no opening, and loopback, link-local and metadata addresses never open`,
      )
    return formatCidr(range)
  })
}
