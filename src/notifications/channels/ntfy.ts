import { z } from '@hono/zod-openapi'
import { HttpUrlSchema } from '../../lib/schemas'
import { originHint, postToService, rebased } from './http'
import { defineKind } from './kind'
import { ntfyErrorCode } from './service-errors'

const PRIORITY = { critical: '5', warning: '4', info: '3' } as const
const TAGS = { problem: 'rotating_light', recovery: 'white_check_mark', test: 'test_tube' } as const

/** A header value: ASCII as is, anything else as an RFC 2047 encoded word, which ntfy decodes. */
function headerText(text: string): string {
  if (/^[\x20-\x7e]*$/.test(text)) return text
  const bytes = new TextEncoder().encode(text)
  return `=?UTF-8?B?${btoa(String.fromCharCode(...bytes))}?=`
}

/**
 * ntfy: a POST of the plain-text message to the topic URL, with `Title`, `Priority` (5 for down, 4 for degraded,
 * 3 otherwise) and `Tags` headers, and `Authorization: Bearer <token>` for a protected topic; answered 200 with
 * the published message as JSON. The topic URL is kept secret: on ntfy the topic name is the password.
 */
export const ntfyKind = defineKind({
  settings: z.strictObject({}),
  secret: z.strictObject({
    topicUrl: HttpUrlSchema.describe('The topic URL, e.g. https://ntfy.sh/my-alerts (kept secret)'),
    accessToken: z.string().min(1).max(256).optional().describe('An access token for a protected topic'),
  }),
  takesApiBaseUrl: true,
  urls: ({ secret, apiBaseUrl }) => [{ field: 'config.topicUrl', url: rebased(secret.topicUrl, apiBaseUrl) }],
  hint: (_settings, secret) => originHint(secret.topicUrl),
  send(_env, { secret, apiBaseUrl }, message) {
    const headers: Record<string, string> = {
      'content-type': 'text/plain; charset=utf-8',
      title: headerText(message.title),
      priority: PRIORITY[message.severity],
      tags: TAGS[message.level],
    }
    if (secret.accessToken) headers.authorization = `Bearer ${secret.accessToken}`
    return postToService(
      rebased(secret.topicUrl, apiBaseUrl),
      { headers, body: message.text },
      [secret.topicUrl, ...(secret.accessToken ? [secret.accessToken] : [])],
      ntfyErrorCode,
    )
  },
})
