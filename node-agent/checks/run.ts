import type { NodeCheck } from '../../src/agent-contract/checks.ts'
import type { Verdict } from '../../src/probes/checks/verdict.ts'
import { checkCert } from './cert.ts'
import { checkDns } from './dns.ts'
import { checkHttp } from './http.ts'
import { checkTcp } from './tcp.ts'

/**
 * Runs one probe check from this node. The panel's outbound rule does not apply here: the operator chose the
 * node, and a private address of its network is what such a check is for. A failing target is a `down` (or
 * `degraded`) verdict with a one-line detail, never an exception. `dnsServer`: see checkDns.
 */
export function runNodeCheck(check: NodeCheck, dnsServer: string | null): Promise<Verdict> {
  switch (check.type) {
    case 'http':
      return checkHttp(check.target, check)
    case 'tcp':
      return checkTcp(check.target, check.timeoutMs)
    case 'dns':
      return checkDns(check, dnsServer)
    case 'cert':
      return checkCert(check.target, check.timeoutMs, check.certWarnDays)
  }
}
