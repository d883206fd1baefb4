import { z } from '@hono/zod-openapi'
import { HttpUrlSchema } from '../../lib/schemas'
import { originHint, postToService, rebased } from './http'
import { defineKind } from './kind'
import { discordErrorCode } from './service-errors'

const COLORS = { critical: 0xd93f3f, warning: 0xe8a317, info: 0x2e9e5b } as const

/** The execute-webhook URL asking Discord to confirm the message (`?wait=true`: 200 with the message, not 204). */
function waited(url: string): string {
  const parsed = new URL(url)
  parsed.searchParams.set('wait', 'true')
  return parsed.toString()
}

/**
 * Discord execute webhook: a POST of `{content, embeds, allowed_mentions}` to the webhook URL with `?wait=true`.
 * Mentions are disabled, so a probe named `@everyone` pings nobody.
 */
export const discordKind = defineKind({
  settings: z.strictObject({}),
  secret: z.strictObject({ webhookUrl: HttpUrlSchema.describe('The channel webhook URL (kept secret)') }),
  takesApiBaseUrl: true,
  urls: ({ secret, apiBaseUrl }) => [
    { field: 'config.webhookUrl', url: rebased(secret.webhookUrl, apiBaseUrl) },
  ],
  hint: (_settings, secret) => originHint(secret.webhookUrl),
  send(_env, { secret, apiBaseUrl }, message) {
    const body = {
      content: message.title,
      embeds: [{ title: message.title, description: message.text, color: COLORS[message.severity] }],
      allowed_mentions: { parse: [] },
    }
    return postToService(
      waited(rebased(secret.webhookUrl, apiBaseUrl)),
      { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) },
      [secret.webhookUrl],
      discordErrorCode,
    )
  },
})
