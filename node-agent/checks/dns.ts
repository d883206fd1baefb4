import { Resolver } from 'node:dns/promises'
import type { NodeCheck } from '../../src/agent-contract/checks.ts'
import { judgeDnsAnswer } from '../../src/probes/checks/dns-answer.ts'
import { down, type Verdict } from '../../src/probes/checks/verdict.ts'

type DnsCheck = Extract<NodeCheck, { type: 'dns' }>

/** The records of `type` as text, the way the panel's DoH answers read them. */
async function lookup(resolver: Resolver, name: string, type: DnsCheck['recordType']): Promise<string[]> {
  switch (type) {
    case 'A':
      return resolver.resolve4(name)
    case 'AAAA':
      return resolver.resolve6(name)
    case 'CNAME':
      return resolver.resolveCname(name)
    case 'NS':
      return resolver.resolveNs(name)
    case 'TXT':
      return (await resolver.resolveTxt(name)).map((strings) => strings.join(''))
    case 'MX':
      return (await resolver.resolveMx(name)).map((mx) => `${mx.priority} ${mx.exchange}`)
  }
}

const code = (error: unknown) =>
  error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : null

/**
 * Looks the name up from this node — with `server` (`ip` or `ip:port`) when given, else the node's own resolvers
 * (its /etc/resolv.conf), so names only the node's network knows resolve — and judges the records as the edge
 * does. NXDOMAIN, a timeout or a failing resolver is down.
 */
export async function checkDns(check: DnsCheck, server: string | null): Promise<Verdict> {
  const resolver = new Resolver({ timeout: check.timeoutMs, tries: 1 })
  if (server !== null) resolver.setServers([server])
  const started = Date.now()
  let data: string[]
  try {
    data = await lookup(resolver, check.target, check.recordType)
  } catch (error) {
    const why = code(error)
    const latencyMs = Date.now() - started
    if (why === 'ENOTFOUND')
      return { outcome: 'down', latencyMs, detail: `NXDOMAIN: ${check.target} does not exist` }
    if (why === 'ENODATA') data = []
    else if (why === 'ETIMEOUT') return down(`the DNS resolver did not answer within ${check.timeoutMs} ms`)
    else return down(`the DNS resolver failed: ${why ?? (error instanceof Error ? error.message : error)}`)
  }
  return judgeDnsAnswer(check.recordType, data, check.expectedValues, Date.now() - started)
}
