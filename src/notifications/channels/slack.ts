import { z } from '@hono/zod-openapi'
import { HttpUrlSchema } from '../../lib/schemas'
import { originHint, postToService, rebased } from './http'
import { defineKind } from './kind'
import { slackErrorCode } from './service-errors'

/** Slack's mrkdwn treats &, < and > as markup; everything else is shown as sent. */
const mrkdwn = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')

/**
 * Slack incoming webhook: a POST of `{text, blocks}` to the webhook URL, answered `200 ok` (errors are 4xx with a
 * word such as `invalid_payload` or `no_service`). `text` is the notification's fallback; the blocks carry a
 * bold title and the text.
 */
export const slackKind = defineKind({
  settings: z.strictObject({}),
  secret: z.strictObject({ webhookUrl: HttpUrlSchema.describe('The incoming webhook URL (kept secret)') }),
  takesApiBaseUrl: true,
  urls: ({ secret, apiBaseUrl }) => [
    { field: 'config.webhookUrl', url: rebased(secret.webhookUrl, apiBaseUrl) },
  ],
  hint: (_settings, secret) => originHint(secret.webhookUrl),
  send(_env, { secret, apiBaseUrl }, message) {
    const body = {
      text: `${message.title}\n${message.text}`,
      blocks: [
        {
          type: 'section',
          text: { type: 'mrkdwn', text: `*${mrkdwn(message.title)}*\n${mrkdwn(message.text)}` },
        },
      ],
    }
    return postToService(
      rebased(secret.webhookUrl, apiBaseUrl),
      { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) },
      [secret.webhookUrl],
      slackErrorCode,
    )
  },
})
