import { readCapped } from './counterpart-body'
import { fetchOutbound } from './fetch-outbound'

const DEFAULT_TIMEOUT_MS = 10_000
/** Far above any real feed; a bigger answer is not a changelog. */
export const UPSTREAM_MAX_BYTES = 2 * 1024 * 1024

/** What a conditional GET of another panel's feed returned. */
export type UpstreamFetch =
  | { kind: 'unchanged' }
  | { kind: 'ok'; body: unknown; etag: string | null }
  | { kind: 'failed'; error: string }

const TOO_LARGE: UpstreamFetch = {
  kind: 'failed',
  error: `upstream feed is larger than ${UPSTREAM_MAX_BYTES} bytes`,
}

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
  let text: string
  try {
    const read = await readCapped(response, UPSTREAM_MAX_BYTES)
    if (!read.complete) return TOO_LARGE
    text = read.text
  } catch (error) {
    return {
      kind: 'failed',
      error: `reading the answer failed: ${error instanceof Error ? error.message : String(error)}`,
    }
  }
  try {
    return { kind: 'ok', body: JSON.parse(text), etag: response.headers.get('etag') }
  } catch {
    return { kind: 'failed', error: 'upstream answered something that is not JSON' }
  }
}
