import { z } from '@hono/zod-openapi'
import type { ChannelAttempt } from './http'
import { postToService } from './http'
import { defineKind } from './kind'
import type { ChannelMessage } from './message'
import { pagerdutyErrorCode } from './service-errors'

const EVENTS_API = 'https://events.pagerduty.com'
const MAX_SUMMARY = 1024

const endpoint = (apiBaseUrl: string | null) => `${(apiBaseUrl ?? EVENTS_API).replace(/\/+$/, '')}/v2/enqueue`

function event(routingKey: string, action: 'trigger' | 'resolve', message: ChannelMessage): string {
  if (action === 'resolve')
    return JSON.stringify({ routing_key: routingKey, event_action: 'resolve', dedup_key: message.dedupKey })
  return JSON.stringify({
    routing_key: routingKey,
    event_action: 'trigger',
    dedup_key: message.dedupKey,
    payload: {
      summary: message.title.slice(0, MAX_SUMMARY),
      source: message.source,
      severity: message.severity,
      custom_details: { text: message.text },
    },
  })
}

/**
 * PagerDuty Events API v2: `POST /v2/enqueue` with `{routing_key, event_action, dedup_key, payload}`, answered
 * `202 {status: "success", dedup_key}`. A problem triggers (critical for down, warning for degraded or
 * flapping), a recovery resolves; one dedup key per probe, so the resolve closes the incident the trigger opened
 * and a reminder adds to it. The test button triggers an `info` event and resolves it at once.
 */
export const pagerdutyKind = defineKind({
  settings: z.strictObject({}),
  secret: z.strictObject({
    routingKey: z
      .string()
      .regex(/^[A-Za-z0-9]{32}$/, 'must be the 32-character integration key of an Events API v2 integration')
      .describe('The Events API v2 integration (routing) key (kept secret)'),
  }),
  takesApiBaseUrl: true,
  urls: ({ apiBaseUrl }) => [{ field: 'apiBaseUrl', url: endpoint(apiBaseUrl) }],
  hint: (_settings, secret) => `routing key …${secret.routingKey.slice(-4)}`,
  async send(_env, { secret, apiBaseUrl }, message): Promise<ChannelAttempt> {
    const post = (action: 'trigger' | 'resolve') =>
      postToService(
        endpoint(apiBaseUrl),
        { headers: { 'content-type': 'application/json' }, body: event(secret.routingKey, action, message) },
        [secret.routingKey],
        pagerdutyErrorCode,
      )
    if (message.level === 'recovery') return post('resolve')
    const triggered = await post('trigger')
    if (message.level !== 'test' || triggered.kind !== 'delivered') return triggered
    return post('resolve')
  },
})
