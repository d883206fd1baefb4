import { parseRetryAfter } from '../lib/retry-after'
import { signatureHeaders } from '../lib/service-signature'
import { fetchOutbound } from './fetch-outbound'

const DEFAULT_TIMEOUT_MS = 10_000

/** What one signed POST achieved: delivered (2xx), gone (410: stop sending), or failed and worth retrying. */
export type WebhookAttempt =
  | { kind: 'delivered'; status: number }
  | { kind: 'gone'; status: 410 }
  | {
      kind: 'failed'
      status: number | null
      error: string
      retryAfterSeconds: number | null
      /** Why no answer came (status null), in the network's words. */
      reason?: string
    }

/**
 * POSTs a JSON body signed with the shared secret (`x-service-timestamp`, `x-service-signature`). Redirects are
 * not followed: a 3xx is a failure like any other non-2xx answer.
 */
export async function sendSignedWebhook(
  url: string,
  body: string,
  secret: string,
  options: { timeoutMs?: number; now?: number } = {},
): Promise<WebhookAttempt> {
  const now = options.now ?? Date.now()
  const answer = await fetchOutbound(
    url,
    {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'hosting-panel-webhook/1',
        ...(await signatureHeaders(secret, body, now)),
      },
      body,
    },
    options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
  )
  if (!answer.answered) {
    return {
      kind: 'failed',
      status: null,
      error: `request failed: ${answer.reason}`,
      retryAfterSeconds: null,
      reason: answer.reason,
    }
  }
  const { response } = answer
  // The answer's body is never read; release it so the connection can be reused.
  await response.body?.cancel()
  if (response.status >= 200 && response.status < 300) return { kind: 'delivered', status: response.status }
  if (response.status === 410) return { kind: 'gone', status: 410 }
  return {
    kind: 'failed',
    status: response.status,
    error: `target answered ${response.status}`,
    retryAfterSeconds: parseRetryAfter(response.headers.get('retry-after'), now) ?? null,
  }
}
