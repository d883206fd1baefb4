import { parseRetryAfter } from '../../lib/retry-after'
import { quotableText } from '../../outside/counterpart-text'
import { fetchOutbound } from '../../outside/fetch-outbound'
import type { Attempt } from '../channels'

const TIMEOUT_MS = 10_000
const USER_AGENT = 'hosting-panel-notify/1'
const READ_BYTES = 4096

/** An attempt and the status the service answered (null when nothing answered). */
/** `deliveredTo`: the recipients reached so far, by a kind that sends to several (email). */
export type ChannelAttempt = Attempt & { status: number | null; deliveredTo?: string[] }

/** The first 4 KB of an answer's body as text (enough to quote), the rest left unread. */
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
 * (after the service's Retry-After); any other answer is final. The answer's first 200 characters are quoted,
 * unless they hold part of one of `secrets` (a service echoing the token back).
 */
export async function postToService(
  url: string,
  init: { headers: Record<string, string>; body: string },
  secrets: readonly string[],
): Promise<ChannelAttempt> {
  const answer = await fetchOutbound(
    url,
    { method: 'POST', headers: { 'user-agent': USER_AGENT, ...init.headers }, body: init.body },
    TIMEOUT_MS,
  )
  if (!answer.answered) {
    const error = quotableText(`request failed: ${answer.reason}`, secrets) ?? 'request failed'
    return { kind: 'failed', status: null, error, retryable: true, retryAfter: null }
  }
  const { response } = answer
  const text = quotableText(await headOf(response).catch(() => ''), secrets)
  const said = `answered ${response.status}${text ? `: ${text}` : ''}`
  if (response.ok) return { kind: 'delivered', status: response.status, answer: said }
  return {
    kind: 'failed',
    status: response.status,
    error: said,
    retryable: response.status >= 500 || response.status === 429,
    retryAfter: parseRetryAfter(response.headers.get('retry-after')) ?? null,
  }
}
