import type { Env } from '../../env'
import { DNS_RCODES, DohError, type DohResult, dohLookup } from '../../outside/doh'
import type { DnsConfig } from '../config'
import { judgeDnsAnswer } from './dns-answer'
import { down, type Verdict } from './verdict'

/**
 * Looks `name` up with the operator's DoH resolver. NXDOMAIN or a failing resolver is down; the records are
 * judged by judgeDnsAnswer.
 */
export async function checkDns(env: Env, name: string, config: DnsConfig): Promise<Verdict> {
  const type = config.recordType
  const started = Date.now()
  let answer: DohResult
  try {
    answer = await dohLookup(env.DOH_RESOLVER_URL, name, type, config.timeoutMs)
  } catch (error) {
    if (error instanceof DohError) return down(error.message)
    throw error
  }
  const latencyMs = Date.now() - started
  const failed = (detail: string): Verdict => ({ outcome: 'down', latencyMs, detail })
  if (answer.status === 3) return failed(`NXDOMAIN: ${name} does not exist`)
  if (answer.status !== 0)
    return failed(
      `the DNS resolver answered ${DNS_RCODES[answer.status] ?? `response code ${answer.status}`}`,
    )
  return judgeDnsAnswer(type, answer.data, config.expectedValues, latencyMs)
}
