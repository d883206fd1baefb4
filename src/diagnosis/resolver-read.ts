import { bareName } from '../lib/dns-name'
import { DNS_RCODES, type DnsLookupType, DohError, type DohResult, dohLookup } from '../outside/doh'
import type { ObservedRecord, ObservedSet } from './schema'

/** How many CNAMEs are followed from the hostname before the chain counts as a loop. */
export const MAX_CNAME_HOPS = 8
/** How long one lookup may take: the status wait is a second, a check waits for the whole read. */
const LOOKUP_TIMEOUT_MS = 3_000

// NOERROR and NXDOMAIN are answers; SERVFAIL, REFUSED and the rest say nothing about the records.
const ANSWERED = new Set([0, 3])

const rcodeName = (status: number) => DNS_RCODES[status] ?? `rcode ${status}`

class Unanswered extends Error {
  constructor(
    readonly rcode: string,
    name: string,
    type: DnsLookupType,
  ) {
    super(`the resolver answered ${rcode} for ${type} ${name}`)
  }
}

async function lookup(resolverUrl: string, name: string, type: DnsLookupType): Promise<DohResult> {
  const result = await dohLookup(resolverUrl, name, type, LOOKUP_TIMEOUT_MS)
  if (!ANSWERED.has(result.status)) throw new Unanswered(rcodeName(result.status), name, type)
  return result
}

const observed = (type: ObservedRecord['type'], result: DohResult): ObservedRecord[] =>
  result.answers.map((a) => ({ type, name: a.name.toLowerCase(), value: bareName(a.data), ttl: a.ttl }))

// CNAME, A and AAAA at one name, at once: a name without a CNAME is read in one round trip.
async function atName(resolverUrl: string, name: string) {
  const [cname, a, aaaa] = await Promise.all([
    lookup(resolverUrl, name, 'CNAME'),
    lookup(resolverUrl, name, 'A'),
    lookup(resolverUrl, name, 'AAAA'),
  ])
  return {
    link: observed('CNAME', cname)[0],
    addresses: [...observed('A', a), ...observed('AAAA', aaaa)],
    rcode: cname.status,
  }
}

/** The CNAME chain from `hostname` (bounded) and the addresses at its end (none past the bound). */
async function cnameChain(resolverUrl: string, hostname: string) {
  const chain: ObservedRecord[] = []
  let name = hostname
  let rcode = 0
  for (let hop = 0; hop < MAX_CNAME_HOPS; hop++) {
    // Past the hostname, a name the resolver will not answer for ends the chain: the hostname's own records
    // were answered, and are what the verdicts judge.
    const read = await atName(resolverUrl, name).catch((error: unknown) => {
      if (hop === 0 || !(error instanceof DohError || error instanceof Unanswered)) throw error
      return null
    })
    if (!read) return { chain, addresses: [], rcode }
    if (hop === 0) rcode = read.rcode
    if (!read.link) return { chain, addresses: read.addresses, rcode }
    chain.push(read.link)
    name = read.link.value.toLowerCase()
  }
  return { chain, addresses: [], rcode }
}

// Only the node's HTTP validation is in use: whatever sits at _acme-challenge was put there by someone else. A
// lookup that fails here leaves the set without it rather than failing the read of the hostname.
async function acmeChallenge(resolverUrl: string, hostname: string): Promise<ObservedRecord[]> {
  const name = `_acme-challenge.${hostname}`
  const [cname, txt] = await Promise.all([
    lookup(resolverUrl, name, 'CNAME').catch(() => null),
    lookup(resolverUrl, name, 'TXT').catch(() => null),
  ])
  return [...(cname ? observed('CNAME', cname) : []), ...(txt ? observed('TXT', txt) : [])]
}

/**
 * What the panel's public resolver answers for the hostname: the CNAME chain followed from it, the A and AAAA
 * records at its end, and whatever `_acme-challenge.<hostname>` holds. An answer that is not NOERROR or NXDOMAIN,
 * or no answer, is the set's `error` with no records: it says nothing about them.
 */
export async function readResolver(resolverUrl: string, hostname: string): Promise<ObservedSet> {
  const acme = acmeChallenge(resolverUrl, hostname)
  try {
    const { chain, addresses, rcode } = await cnameChain(resolverUrl, hostname)
    return {
      source: 'resolver',
      readAt: new Date().toISOString(),
      rcode: rcodeName(rcode),
      error: null,
      records: [...chain, ...addresses, ...(await acme)],
    }
  } catch (error) {
    if (!(error instanceof DohError || error instanceof Unanswered)) throw error
    await acme
    return {
      source: 'resolver',
      readAt: new Date().toISOString(),
      rcode: error instanceof Unanswered ? error.rcode : null,
      error: error.message,
      records: [],
    }
  }
}
