import { z } from '@hono/zod-openapi'
import { postToService } from './http'
import { defineKind } from './kind'
import { telegramErrorCode } from './service-errors'

const TELEGRAM_API = 'https://api.telegram.org'

const endpoint = (botToken: string, apiBaseUrl: string | null) =>
  `${(apiBaseUrl ?? TELEGRAM_API).replace(/\/+$/, '')}/bot${botToken}/sendMessage`

/**
 * Telegram Bot API: `POST <api>/bot<token>/sendMessage` with `{chat_id, text}`, answered `{ok: true, result}`
 * (or `{ok: false, error_code, description}` with a 4xx). Plain text: no parse mode to escape for.
 */
export const telegramKind = defineKind({
  settings: z.strictObject({
    chatId: z
      .string()
      .regex(/^(-?\d{1,20}|@[A-Za-z0-9_]{5,32})$/, 'must be a numeric chat id or a @channel username')
      .describe('The chat, group or channel to post in'),
  }),
  secret: z.strictObject({
    botToken: z
      .string()
      .regex(/^\d{1,20}:[A-Za-z0-9_-]{20,100}$/, 'must be a bot token as BotFather gives it (123456:ABC…)')
      .describe('The bot token (kept secret)'),
  }),
  takesApiBaseUrl: true,
  urls: ({ secret, apiBaseUrl }) => [{ field: 'apiBaseUrl', url: endpoint(secret.botToken, apiBaseUrl) }],
  hint: (settings) => `chat ${settings.chatId}`,
  send(_env, { settings, secret, apiBaseUrl }, message) {
    const body = {
      chat_id: settings.chatId,
      text: `${message.title}\n\n${message.text}`,
      link_preview_options: { is_disabled: true },
    }
    return postToService(
      endpoint(secret.botToken, apiBaseUrl),
      { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) },
      [secret.botToken],
      telegramErrorCode,
    )
  },
})
