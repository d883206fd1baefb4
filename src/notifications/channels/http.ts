import { parseRetryAfter } from '../../lib/retry-after'
import { fetchOutbound } from '../../outside/fetch-outbound'
import type { Attempt } from '../channels'
import { answeredText, type DeliveryOutcome, outcomeOf, unreachableText } from './outcome'
import type { ErrorCodeReader } from './service-errors'

const TIMEOUT_MS = 10_000
const USER_AGENT = 'hosting-panel-notify/1'
const READ_BYTES = 4096

/**
 * An attempt, the status the service answered (null when nothing answered), what that came to, and the service's
 * documented error code when its error answer had one. `deliveredTo`: the recipients reached so far, by a kind
 * that sends to several (email).
 */
export type ChannelAttempt = Attempt & {
  status: number | null
  outcome: DeliveryOutcome
  serviceCode: string | null
  deliveredTo?: string[]
}

/** The first 4 KB of an answer's body as text (enough for an error code), the rest left unread. */
async function headOf(response: Response): Promise<string> {
  const reader = response.body?.getReader()
  if (!reader) return ''
  const chunks: Uint8Array[] = []
  let size = 0
  while (size < READ_BYTES) {
    const { done, value } = await reader.read()
    if (done) break
    chunks.push(value)
    size += value.byteLength
  }
  await reader.cancel().catch(() => {})
  const bytes = new Uint8Array(size)
  let at = 0
  for (const chunk of chunks) {
    bytes.set(chunk, at)
    at += chunk.byteLength
  }
  return new TextDecoder().decode(bytes.slice(0, READ_BYTES))
}

/** `url` with its origin replaced by `apiBaseUrl` (a proxy, a self-hosted server); the path and query are kept. */
export function rebased(url: string, apiBaseUrl: string | null): string {
  if (!apiBaseUrl) return url
  const parsed = new URL(url)
  return `${apiBaseUrl.replace(/\/+$/, '')}${parsed.pathname}${parsed.search}`
}

/** `https://hooks.slack.com/***`: a URL whose path is its credential, shown by its origin only. */
export function originHint(url: string): string {
  return `${new URL(url).origin}/***`
}

/**
 * POSTs to a service and judges its answer: 2xx is delivered; a network error, 5xx or 429 is worth a retry
 * (after the service's Retry-After); any other answer is final. What is kept is the status, its outcome and the
 * error code `readCode` finds in the service's documented error shape; never the body itself. A network reason
 * holding part of one of `secrets` is withheld.
 */
export async function postToService(
  url: string,
  init: { headers: Record<string, string>; body: string },
  secrets: readonly string[],
  readCode: ErrorCodeReader,
): Promise<ChannelAttempt> {
  const answer = await fetchOutbound(
    url,
    { method: 'POST', headers: { 'user-agent': USER_AGENT, ...init.headers }, body: init.body },
    TIMEOUT_MS,
  )
  if (!answer.answered) {
    return {
      kind: 'failed',
      status: null,
      outcome: 'unreachable',
      serviceCode: null,
      error: unreachableText(answer.reason, secrets),
      retryable: true,
      retryAfter: null,
    }
  }
  const { response } = answer
  const { status } = response
  if (response.ok) {
    await response.body?.cancel()
    return {
      kind: 'delivered',
      status,
      outcome: 'delivered',
      serviceCode: null,
      answer: answeredText(status, null, null),
    }
  }
  const serviceCode = readCode(await headOf(response).catch(() => ''))
  const retryAfter = parseRetryAfter(response.headers.get('retry-after')) ?? null
  return {
    kind: 'failed',
    status,
    outcome: outcomeOf(status),
    serviceCode,
    error: answeredText(status, serviceCode, retryAfter),
    retryable: status >= 500 || status === 429,
    retryAfter,
  }
}
