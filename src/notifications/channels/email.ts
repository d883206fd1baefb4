import { z } from '@hono/zod-openapi'
import { sendNotificationEmail } from '../channels'
import type { ChannelAttempt } from './http'
import { defineKind } from './kind'

const MAX_RECIPIENTS = 20

/**
 * Email through the ALERT_EMAIL binding, one message per recipient. There is no HTTP API to override, so
 * `apiBaseUrl` is refused. Every recipient not yet reached is tried on each attempt; a refused send retries the
 * delivery for the refused recipients only.
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
  async send(env, { settings }, message, deliveredBefore): Promise<ChannelAttempt> {
    const recipients = new Set(settings.recipients.map((address) => address.toLowerCase()))
    const named = (to: string, text: string) => (recipients.size > 1 ? `${to}: ${text}` : text)
    const deliveredTo = [...deliveredBefore]
    const answers: string[] = []
    const errors: string[] = []
    for (const to of recipients) {
      if (deliveredTo.includes(to)) continue
      const attempt = await sendNotificationEmail(env, to, { subject: message.title, text: message.text })
      if (attempt.kind === 'failed') {
        errors.push(named(to, attempt.error))
        continue
      }
      deliveredTo.push(to)
      answers.push(named(to, attempt.answer))
    }
    if (errors.length > 0) {
      return {
        kind: 'failed',
        error: errors.join('; '),
        retryable: true,
        retryAfter: null,
        status: null,
        outcome: 'refused',
        serviceCode: null,
        deliveredTo,
      }
    }
    return {
      kind: 'delivered',
      status: null,
      outcome: 'delivered',
      serviceCode: null,
      answer: answers.join('; '),
      deliveredTo,
    }
  },
})
