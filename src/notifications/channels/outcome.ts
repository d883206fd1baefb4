import { quotableText } from '../../outside/counterpart-text'

/**
 * What became of one send, in the panel's own words (`not_sent`: the panel could not send it, e.g. a secret it
 * cannot open). The counterpart's body is never kept or shown: an admin
 * chooses where a channel posts (apiBaseUrl), so quoting what answered there would read back any HTTP service
 * the panel can reach. Only a service's documented error code, parsed from its documented error shape, is kept.
 */
export const DELIVERY_OUTCOMES = [
  'delivered',
  'refused',
  'not_found',
  'rate_limited',
  'server_error',
  'unreachable',
  'not_sent',
] as const
export type DeliveryOutcome = (typeof DELIVERY_OUTCOMES)[number]
type AnsweredOutcome = Exclude<DeliveryOutcome, 'unreachable' | 'not_sent'>

/** The outcome an HTTP status stands for; a redirect (never followed) is a refusal like any other 4xx. */
export function outcomeOf(status: number): AnsweredOutcome {
  if (status >= 200 && status < 300) return 'delivered'
  if (status === 404 || status === 410) return 'not_found'
  if (status === 429) return 'rate_limited'
  if (status >= 500) return 'server_error'
  return 'refused'
}

const WORDS: Record<AnsweredOutcome, string> = {
  delivered: 'delivered',
  refused: 'refused by the service',
  not_found: 'not found',
  rate_limited: 'rate limited',
  server_error: 'server error',
}

/** `answered 403: refused by the service (invalid_token)`, `answered 429: rate limited, retry after 30 s`. */
export function answeredText(status: number, serviceCode: string | null, retryAfter: number | null): string {
  const outcome = outcomeOf(status)
  const code = serviceCode === null ? '' : ` (${serviceCode})`
  const wait = outcome === 'rate_limited' && retryAfter !== null ? `, retry after ${retryAfter} s` : ''
  return `answered ${status}: ${WORDS[outcome]}${code}${wait}`
}

/** `unreachable: timed out after 10 s`: the network's reason, withheld if it holds part of one of `secrets`. */
export function unreachableText(reason: string, secrets: readonly string[]): string {
  return `unreachable: ${quotableText(reason, secrets) ?? 'the request failed'}`
}
