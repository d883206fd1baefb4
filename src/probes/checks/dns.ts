import { canonicalIpv6 } from '../../dns-servers/record-validation'
import type { Env } from '../../env'
import { bareName } from '../../lib/dns-name'
import { DNS_RCODES, DohError, type DohResult, dohLookup } from '../../outside/doh'
import type { DnsConfig } from '../config'
import { down, type Verdict } from './verdict'

type RecordType = DnsConfig['recordType']

const MAX_SHOWN = 300

/** A TXT record's strings joined, as SPF and DMARC read them: `"v=spf1 " "-all"` is `v=spf1 -all`. */
function txtText(value: string): string {
  const strings = [...value.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => (m[1] ?? '').replace(/\\(.)/g, '$1'))
  return strings.length > 0 ? strings.join('') : value
}

/** A value as DNS means it, so an expected value matches its answer however either is spelled. */
function comparable(type: RecordType, value: string): string {
  const text = value.trim()
  switch (type) {
    case 'TXT':
      return txtText(text)
    case 'AAAA':
      return canonicalIpv6(text) ?? text.toLowerCase()
    case 'MX':
      return text
        .toLowerCase()
        .split(/\s+/)
        .map((part) => bareName(part))
        .join(' ')
    default:
      return bareName(text.toLowerCase())
  }
}

const shown = (data: string[]) => {
  const text = data.join(', ')
  return text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}…` : text
}

/**
 * Looks `name` up with the operator's DoH resolver. No answer, NXDOMAIN or a failing resolver is down; with
 * expectedValues, all present is up, some degraded (the missing named), none down.
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
  if (answer.data.length === 0) return failed(`no ${type} records`)
  const present = new Set(answer.data.map((value) => comparable(type, value)))
  const missing = config.expectedValues.filter((value) => !present.has(comparable(type, value)))
  if (missing.length === 0) return { outcome: 'up', latencyMs, detail: `${type} ${shown(answer.data)}` }
  return {
    outcome: missing.length < config.expectedValues.length ? 'degraded' : 'down',
    latencyMs,
    detail: `${type} is missing ${shown(missing)} (answer: ${shown(answer.data)})`,
  }
}
