import type { z } from 'zod'
import { parseRateLimitReset, parseRetryAfter } from '../../lib/retry-after'
import { readCapped, readErrorText } from '../counterpart-body'
import { quotableText } from '../counterpart-text'
import { fetchOutbound } from '../fetch-outbound'
import { DNS_PROVIDER_LABELS, DnsProviderError, type DnsProviderErrorKind, type DnsProviderId } from './types'

const DEFAULT_TIMEOUT_MS = 10_000
const RETRY_AFTER_STATUSES = new Set([429, 503])

export interface ProviderRequest {
  provider: DnsProviderId
  baseUrl: string
  /** Path below the API root, query included, starting with `/`. */
  path: string
  method?: 'GET' | 'POST' | 'DELETE'
  headers: Record<string, string>
  /** The secrets the call carries (the token): provider words holding any part of one are never quoted. */
  withheld: readonly string[]
  /** Said after the provider's words when it refuses the token (e.g. how to get a token of the right kind). */
  authAdvice?: string
  body?: unknown
  timeoutMs?: number
  /** The provider's own words from an error body, when it has any. */
  errorMessage(body: unknown): string | undefined
  /** Lets a provider reclassify an answer whose status alone misleads (e.g. a malformed token answered 400). */
  errorKind?(status: number, body: unknown): DnsProviderErrorKind | undefined
}

export interface ProviderResponse {
  status: number
  body: unknown
}

/** The API root to call: the account's override when set, else the provider's public default. */
export function apiRoot(defaultBaseUrl: string, override: string | null | undefined): string {
  return (override || defaultBaseUrl).replace(/\/+$/, '')
}

function kindOfStatus(status: number): DnsProviderErrorKind {
  if (status === 401 || status === 403) return 'auth'
  if (status === 404) return 'not_found'
  if (status === 429) return 'rate_limited'
  if (status >= 400 && status < 500) return 'invalid'
  return 'unavailable'
}

function describeFailure(
  kind: DnsProviderErrorKind,
  label: string,
  status: number,
  said: string | undefined,
): string {
  const suffix = said ? `: ${said}` : ''
  switch (kind) {
    case 'auth':
      return `${label} rejected the token (HTTP ${status}${suffix})`
    case 'not_found':
      return `${label} does not know the requested zone or record (HTTP ${status}${suffix})`
    case 'rate_limited':
      return `${label} is rate limiting this token (HTTP ${status}${suffix})`
    case 'exists':
      return `${label} already holds that record (HTTP ${status}${suffix})`
    case 'invalid':
      return `${label} refused the request (HTTP ${status}${suffix})`
    case 'unavailable':
      return `${label} failed to answer (HTTP ${status}${suffix})`
  }
}

// A zone listing page is the largest answer asked for: 500 domains at most, well under a megabyte.
const ANSWER_MAX_BYTES = 1024 * 1024

function parsed(text: string): unknown {
  if (!text) return undefined
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

function providerWords(words: string | undefined, withheld: readonly string[]): string | undefined {
  if (!words?.trim()) return undefined
  return quotableText(words, withheld) ?? 'its message is left out because it repeats part of the token'
}

// A provider asks for a pause with Retry-After on a rate limit and on a planned outage (Vultr sends 503s); a 429
// without one may still say when its window resets (DigitalOcean's hourly limit, Hetzner).
function retryAfterOf(response: Response): number | undefined {
  if (!RETRY_AFTER_STATUSES.has(response.status)) return undefined
  const retryAfter = parseRetryAfter(response.headers.get('retry-after'))
  if (retryAfter !== undefined || response.status !== 429) return retryAfter
  return parseRateLimitReset(response.headers.get('ratelimit-reset'))
}

/** One call to a provider: JSON in and out, a timeout, and every failure turned into a DnsProviderError. */
export async function providerRequest(request: ProviderRequest): Promise<ProviderResponse> {
  const label = DNS_PROVIDER_LABELS[request.provider]
  const timeoutMs = request.timeoutMs ?? DEFAULT_TIMEOUT_MS
  const headers: Record<string, string> = { accept: 'application/json', ...request.headers }
  if (request.body !== undefined) headers['content-type'] = 'application/json'
  const answer = await fetchOutbound(
    `${request.baseUrl}${request.path}`,
    {
      method: request.method ?? 'GET',
      headers,
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
    },
    timeoutMs,
  )
  if (!answer.answered) {
    if (answer.refused)
      throw new DnsProviderError(request.provider, 'invalid', `${label} was not called: ${answer.reason}`)
    const why = answer.reason.startsWith('timed out')
      ? `did not answer within ${timeoutMs / 1000} s`
      : 'could not be reached'
    throw new DnsProviderError(request.provider, 'unavailable', `${label} ${why} at ${request.baseUrl}`)
  }
  const { response } = answer
  if (response.ok) {
    const { text, complete } = await readCapped(response, ANSWER_MAX_BYTES)
    if (!complete) {
      throw new DnsProviderError(
        request.provider,
        'unavailable',
        `${label} answered with more than ${ANSWER_MAX_BYTES} bytes`,
      )
    }
    return { status: response.status, body: parsed(text) }
  }
  const body = parsed(await readErrorText(response))
  const kind = request.errorKind?.(response.status, body) ?? kindOfStatus(response.status)
  const words = request.errorMessage(body)
  const said = providerWords(words, request.withheld)
  const message = describeFailure(kind, label, response.status, said)
  const authAdvice = kind === 'auth' && request.authAdvice ? `; ${request.authAdvice}` : ''
  const retryAfter = retryAfterOf(response)
  const advice = retryAfter === undefined ? '' : `; retry after ${retryAfter} s`
  throw new DnsProviderError(request.provider, kind, `${message}${authAdvice}${advice}`, {
    status: response.status,
    retryAfterSeconds: retryAfter,
  })
}

export type ProviderCall = (
  path: string,
  method?: 'GET' | 'POST' | 'DELETE',
  body?: unknown,
) => Promise<ProviderResponse>

/** Binds what every request of one account shares (root, auth headers, error reading), leaving path, method and body. */
export function providerCaller(account: Omit<ProviderRequest, 'path' | 'method' | 'body'>): ProviderCall {
  return (path, method = 'GET', body) => providerRequest({ ...account, path, method, body })
}

/** Checks a success body against the shape the provider documents. */
export function parseBody<T>(provider: DnsProviderId, schema: z.ZodType<T>, body: unknown): T {
  const parsed = schema.safeParse(body)
  if (parsed.success) return parsed.data
  throw new DnsProviderError(
    provider,
    'unavailable',
    `${DNS_PROVIDER_LABELS[provider]} answered in a shape the panel does not recognise`,
  )
}

/** Runs a delete call; the provider not knowing the record means it is already gone, which is what was wanted. */
export async function deleteOrGone(run: () => Promise<unknown>): Promise<'deleted' | 'already-gone'> {
  try {
    await run()
    return 'deleted'
  } catch (error) {
    if (error instanceof DnsProviderError && error.kind === 'not_found') return 'already-gone'
    throw error
  }
}
