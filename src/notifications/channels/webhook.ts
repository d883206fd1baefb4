import { z } from '@hono/zod-openapi'
import { HttpUrlSchema } from '../../lib/schemas'
import { signatureHeaders } from '../../lib/service-signature'
import { originHint, postToService, rebased } from './http'
import { defineKind } from './kind'
import { noErrorCode } from './service-errors'

/**
 * The panel's own signed webhook: the notification's JSON body, signed with the channel's secret
 * (`x-service-timestamp`, `x-service-signature`) like every webhook the panel sends.
 */
export const webhookKind = defineKind({
  settings: z.strictObject({}),
  secret: z.strictObject({
    url: HttpUrlSchema.describe('Receives a signed POST per notification'),
    secret: z.string().min(16, 'must be at least 16 characters').max(512).describe('Signs every delivery'),
  }),
  takesApiBaseUrl: true,
  urls: ({ secret, apiBaseUrl }) => [{ field: 'config.url', url: rebased(secret.url, apiBaseUrl) }],
  hint: (_settings, secret) => originHint(secret.url),
  async send(_env, { secret, apiBaseUrl }, message) {
    const headers = {
      'content-type': 'application/json',
      ...(await signatureHeaders(secret.secret, message.body, Date.now())),
    }
    return postToService(
      rebased(secret.url, apiBaseUrl),
      { headers, body: message.body },
      [secret.secret],
      noErrorCode,
    )
  },
})
