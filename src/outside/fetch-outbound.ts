import { isAddressLiteral, isProduction, isPublicAddress, outboundUrlProblem } from '../lib/outbound-url'
import { DNS_RCODES, DohError, type DohResult, dohLookup } from './doh'
import { fetchWithDeadline, type OutboundAnswer } from './fetch-with-deadline'

export type { OutboundAnswer }

/** How every refusal by the outbound rule begins (fetchOutbound's reason, the probe checks' detail). */
export const OUTBOUND_REFUSAL = 'refused by the outbound rule'

type Bindings = Record<'ENVIRONMENT' | 'DOH_RESOLVER_URL', string | undefined>

// The running Worker's bindings, read at each send so no caller has to pass them down and none can forget.
// Imported on first use, not at load: the Node tests build the app (for its OpenAPI document) outside workerd.
async function bindings(): Promise<Bindings> {
  const { env } = await import('cloudflare:workers')
  const read = (name: keyof Bindings) => {
    const value: unknown = Reflect.get(env, name)
    return typeof value === 'string' ? value : undefined
  }
  return { ENVIRONMENT: read('ENVIRONMENT'), DOH_RESOLVER_URL: read('DOH_RESOLVER_URL') }
}

/** Why the rule keeps a request from going out; `final` unless the question stayed open (a resolver failure). */
export interface Problem {
  text: string
  final: boolean
}

/** Why `host` may not be called, judged by its A and AAAA answers from the DoH resolver; null if all are public. */
export async function resolvedHostProblem(
  host: string,
  resolver: string | undefined,
): Promise<Problem | null> {
  const judged = await approvedAddresses(host, resolver)
  return 'problem' in judged ? judged.problem : null
}

/**
 * The A and AAAA answers for `host` from the DoH resolver when every one is public (A first), or why `host` may
 * not be called. Connecting to one of these, not to the name, keeps a later answer from changing the destination.
 */
export async function approvedAddresses(
  host: string,
  resolver: string | undefined,
): Promise<{ problem: Problem } | { addresses: string[] }> {
  const refused = (text: string, final: boolean) => ({ problem: { text, final } })
  const open = (why: string) => refused(`could not check where ${host} points: ${why}`, false)
  if (!resolver) return refused(`could not check where ${host} points: DOH_RESOLVER_URL is not set`, true)
  let answers: DohResult[]
  try {
    answers = await Promise.all([dohLookup(resolver, host, 'A'), dohLookup(resolver, host, 'AAAA')])
  } catch (error) {
    if (error instanceof DohError) return open(error.message)
    throw error
  }
  // NXDOMAIN is an answer (nothing to call); any other failure code leaves the question open.
  const failed = answers.find((answer) => answer.status !== 0 && answer.status !== 3)
  if (failed)
    return open(`the DNS resolver answered ${DNS_RCODES[failed.status] ?? `response code ${failed.status}`}`)
  const addresses = answers.flatMap((answer) => answer.data)
  if (addresses.length === 0) return refused(`${host} does not resolve to any address`, true)
  const inward = addresses.find((address) => !isPublicAddress(address))
  return inward === undefined
    ? { addresses }
    : refused(`${host} resolves to ${inward}, which is not a public address`, true)
}

/**
 * Why the panel will not send to `url` now, or null. The rule a URL passed when it was saved is applied again
 * (a stored URL may predate it or the switch to production), then a host name must resolve to public
 * addresses only. Never quotes the URL itself: its path or query may carry a secret.
 */
async function destinationProblem(url: string): Promise<Problem | null> {
  const config = await bindings()
  const production = isProduction(config)
  const problem = outboundUrlProblem(url, production)
  if (problem) return { text: `the URL ${problem}`, final: true }
  const { hostname } = new URL(url)
  if (!production || isAddressLiteral(hostname)) return null
  return resolvedHostProblem(hostname.replace(/\.$/, ''), config.DOH_RESOLVER_URL)
}

/**
 * fetch with a deadline that never follows redirects, so a credential header (API key, token, signature)
 * cannot travel to another origin, to a destination the outbound rule allows at the moment of sending (see
 * destinationProblem). Every call to a counterpart goes through here; a refusal is an answer that never came.
 */
export async function fetchOutbound(
  url: string | URL,
  init: RequestInit,
  timeoutMs: number,
): Promise<OutboundAnswer> {
  const problem = await destinationProblem(String(url))
  if (problem)
    return {
      answered: false,
      timedOut: false,
      refused: problem.final,
      kind: 'outbound-rule',
      reason: `${OUTBOUND_REFUSAL}: ${problem.text}`,
    }
  return fetchWithDeadline(url, init, timeoutMs)
}
