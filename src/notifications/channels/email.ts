import { z } from '@hono/zod-openapi'
import { sendNotificationEmail } from '../channels'
import type { ChannelAttempt } from './http'
import { defineKind } from './kind'

const MAX_RECIPIENTS = 20

/**
 * Email through the ALERT_EMAIL binding, one message per recipient. There is no HTTP API to override, so
 * `apiBaseUrl` is refused. A refused send retries the whole channel (recipients already sent to hear it again).
 */
export const emailKind = defineKind({
  settings: z.strictObject({
    recipients: z
      .array(z.email('must be an email address').max(254))
      .min(1)
      .max(MAX_RECIPIENTS, `must hold at most ${MAX_RECIPIENTS} addresses`),
  }),
  secret: z.strictObject({}),
  takesApiBaseUrl: false,
  urls: () => [],
  hint: (settings) => `${settings.recipients.length} recipient${settings.recipients.length === 1 ? '' : 's'}`,
  async send(env, { settings }, message): Promise<ChannelAttempt> {
    const answers: string[] = []
    for (const to of new Set(settings.recipients.map((address) => address.toLowerCase()))) {
      const attempt = await sendNotificationEmail(env, to, { subject: message.title, text: message.text })
      if (attempt.kind === 'failed') return { ...attempt, status: null }
      answers.push(attempt.answer)
    }
    return { kind: 'delivered', status: null, answer: answers.join('; ') }
  },
})
