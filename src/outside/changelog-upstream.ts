import { fetchOutbound } from './fetch-outbound'

const DEFAULT_TIMEOUT_MS = 10_000
/** Far above any real feed; a bigger answer is not a changelog. */
const MAX_BYTES = 2 * 1024 * 1024

/** What a conditional GET of another panel's feed returned. */
export type UpstreamFetch =
  | { kind: 'unchanged' }
  | { kind: 'ok'; body: unknown; etag: string | null }
  | { kind: 'failed'; error: string }

/** Fetches an upstream changelog feed, sending the ETag of the last copy kept so an unchanged feed costs a 304. */
export async function fetchUpstreamFeed(
  url: string,
  etag: string | null,
  timeoutMs = DEFAULT_TIMEOUT_MS,
): Promise<UpstreamFetch> {
  const answer = await fetchOutbound(
    url,
    {
      headers: {
        accept: 'application/json',
        'user-agent': 'hosting-panel-mirror/1',
        ...(etag ? { 'if-none-match': etag } : {}),
      },
    },
    timeoutMs,
  )
  if (!answer.answered) return { kind: 'failed', error: `request failed: ${answer.reason}` }
  const { response } = answer
  if (response.status === 304) {
    await response.body?.cancel()
    return { kind: 'unchanged' }
  }
  if (response.status !== 200) {
    await response.body?.cancel()
    return { kind: 'failed', error: `upstream answered ${response.status}` }
  }
  const declared = Number(response.headers.get('content-length') ?? 0)
  if (declared > MAX_BYTES) {
    await response.body?.cancel()
    return { kind: 'failed', error: `upstream feed is larger than ${MAX_BYTES} bytes` }
  }
  const text = await response.text()
  if (text.length > MAX_BYTES)
    return { kind: 'failed', error: `upstream feed is larger than ${MAX_BYTES} bytes` }
  try {
    return { kind: 'ok', body: JSON.parse(text), etag: response.headers.get('etag') }
  } catch {
    return { kind: 'failed', error: 'upstream answered something that is not JSON' }
  }
}
