import type { NodeCheck } from '../../src/agent-contract/checks.ts'
import type { Verdict } from '../../src/probes/checks/verdict.ts'
import { checkCert } from './cert.ts'
import type { Vet } from './destination.ts'
import { checkDns } from './dns.ts'
import { checkHttp } from './http.ts'
import { checkTcp } from './tcp.ts'

/**
 * How a node runs its checks: `vet` is the node's destination rule (destination.ts), applied to every address an
 * http (each redirect hop too), tcp or cert check connects to; `dnsServer`: see checkDns.
 */
export interface NodeCheckContext {
  vet: Vet
  dnsServer: string | null
}

/**
 * Runs one probe check from this node. A failing target, or one the rule refuses, is a `down` (or `degraded`)
 * verdict with a one-line detail, never an exception.
 */
export function runNodeCheck(check: NodeCheck, context: NodeCheckContext): Promise<Verdict> {
  switch (check.type) {
    case 'http':
      return checkHttp(check.target, check, context.vet)
    case 'tcp':
      return checkTcp(check.target, check.timeoutMs, context.vet)
    case 'dns':
      return checkDns(check, context.dnsServer)
    case 'cert':
      return checkCert(check.target, check.timeoutMs, check.certWarnDays, context.vet)
  }
}
