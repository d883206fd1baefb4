/**
 * Each service's documented error shape, read for its short error code and nothing else. A body that does not
 * parse as that shape gives no code: whatever else answered is never quoted (see outcome.ts).
 */
export type ErrorCodeReader = (body: string) => string | null

function jsonObject(body: string): Record<string, unknown> | null {
  try {
    const parsed: unknown = JSON.parse(body)
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : null
  } catch {
    return null
  }
}

const isCode = (value: unknown): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0 && value < 1_000_000

// Slack's incoming webhooks answer a failure with one plain-text word, from this documented list.
const SLACK_WORDS = new Set([
  'invalid_payload',
  'user_not_found',
  'action_prohibited',
  'channel_not_found',
  'channel_is_archived',
  'rollup_error',
  'no_service',
  'no_service_id',
  'no_team',
  'team_disabled',
  'invalid_token',
  'no_active_hooks',
  'invalid_blocks',
  'invalid_blocks_format',
  'too_many_attachments',
  'posting_to_general_channel_denied',
  'missing_text_or_fallback_or_attachments',
  'rate_limited',
])

/** Slack: `invalid_token`, `no_service`, … as the whole body. */
export const slackErrorCode: ErrorCodeReader = (body) => {
  const word = body.trim()
  return SLACK_WORDS.has(word) ? word : null
}

/** Discord: `{"message": "Unknown Webhook", "code": 10015}`; the numeric JSON error code. */
export const discordErrorCode: ErrorCodeReader = (body) => {
  const json = jsonObject(body)
  return json && isCode(json.code) && typeof json.message === 'string' ? String(json.code) : null
}

// Telegram's descriptions are a status phrase and lower-case words: `Bad Request: chat not found`.
const TELEGRAM_DESCRIPTION = /^[A-Z][A-Za-z ]{2,30}(: [a-z][a-z0-9 _']{0,80})?$/

/** Telegram: `{"ok": false, "error_code": 400, "description": "Bad Request: chat not found"}`. */
export const telegramErrorCode: ErrorCodeReader = (body) => {
  const json = jsonObject(body)
  if (json?.ok !== false || !isCode(json.error_code) || typeof json.description !== 'string') return null
  return TELEGRAM_DESCRIPTION.test(json.description) ? json.description : null
}

/** ntfy: `{"code": 40301, "http": 403, "error": "forbidden"}`; the five-digit code. */
export const ntfyErrorCode: ErrorCodeReader = (body) => {
  const json = jsonObject(body)
  return json && isCode(json.code) && isCode(json.http) && typeof json.error === 'string'
    ? String(json.code)
    : null
}

/** PagerDuty Events API v2: `{"status": "invalid event", "message": "Event object is invalid", "errors": [...]}`. */
export const pagerdutyErrorCode: ErrorCodeReader = (body) => {
  const json = jsonObject(body)
  return json && json.status === 'invalid event' && typeof json.message === 'string' ? json.status : null
}

/** A receiver of the panel's own signed webhook has no documented error shape. */
export const noErrorCode: ErrorCodeReader = () => null
