import { type Caller, ok } from './http'
import { fakeOrigin } from './outbound'

/** One request a fake service received. */
export interface Received {
  url: URL
  headers: Headers
  body: string
  json(): Record<string, unknown>
}

/** A fake service: what it received, and the statuses it answers next (the last one repeats; 2xx by default). */
export interface FakeService {
  received: Received[]
  statuses: number[]
}

export const SLACK_URL = 'https://hooks.slack.com/services/T0PANEL/B0ALERTS/s3cr3tSlackToken0123'
export const DISCORD_URL = 'https://discord.com/api/webhooks/123456789012345678/s3cr3tDiscordToken0123'
export const BOT_TOKEN = '123456789:AAH-s3cr3tTelegramBotToken_0123'
export const NTFY_TOPIC = 'https://ntfy.sh/panel-alerts-s3cr3tTopic'
export const NTFY_TOKEN = 'tk_s3cr3tNtfyAccessToken0123'
export const ROUTING_KEY = 'R0ut1ngK3yS3cr3tPagerDuty0123456'
export const HOOK_URL = 'https://hooks.channel-receiver.example.com/panel'
export const HOOK_SECRET = 'channel-webhook-secret-0123456789'

/** Every secret the channels above hold: none may ever appear in an answer. */
export const CHANNEL_SECRETS = [
  's3cr3tSlackToken0123',
  's3cr3tDiscordToken0123',
  's3cr3tTelegramBotToken',
  's3cr3tTopic',
  NTFY_TOKEN,
  ROUTING_KEY,
  HOOK_SECRET,
]

type Answer = (request: Request, status: number, body: string) => Response | Promise<Response>

/** Serves `origin` with `answer`, recording each request. */
export function fakeService(origin: string, answer: Answer): FakeService {
  const service: FakeService = { received: [], statuses: [] }
  fakeOrigin(origin, async (request) => {
    const body = await request.text()
    service.received.push({
      url: new URL(request.url),
      headers: request.headers,
      body,
      json: () => JSON.parse(body) as Record<string, unknown>,
    })
    const status = service.statuses[Math.min(service.received.length - 1, service.statuses.length - 1)] ?? 0
    return answer(request, status, body)
  })
  return service
}

const json = (value: unknown, status: number, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(value), { status, headers: { 'content-type': 'application/json', ...headers } })

/** Slack's incoming webhook: `200 ok`, or a 4xx with a word (`invalid_payload`). */
export const slackFake = () =>
  fakeService('https://hooks.slack.com', (_request, status) =>
    status && status !== 200 ? new Response('invalid_payload', { status }) : new Response('ok'),
  )

/** Discord's execute webhook with `?wait=true`: 200 with the created message; 429 with retry_after. */
export const discordFake = () =>
  fakeService('https://discord.com', (request, status) => {
    if (status === 429)
      return json({ message: 'You are being rate limited.', retry_after: 2 }, 429, { 'retry-after': '2' })
    if (status && status !== 200) return json({ message: 'Unknown Webhook', code: 10015 }, status)
    const wait = new URL(request.url).searchParams.get('wait') === 'true'
    return wait
      ? json({ id: '1100000000000000001', type: 0, content: 'x' }, 200)
      : new Response(null, { status: 204 })
  })

/** The Telegram Bot API: `{ok: true, result}`, or `{ok: false, error_code, description}`. */
export const telegramFake = () =>
  fakeService('https://api.telegram.org', (_request, status) =>
    status && status !== 200
      ? json({ ok: false, error_code: status, description: 'Bad Request: chat not found' }, status)
      : json({ ok: true, result: { message_id: 42, chat: { id: -1005550001111 } } }, 200),
  )

/** ntfy: 200 with the published message as JSON. */
export const ntfyFake = (origin = 'https://ntfy.sh') =>
  fakeService(origin, (request, status) =>
    status && status !== 200
      ? json({ code: 40301, http: 403, error: 'forbidden' }, status)
      : json(
          {
            id: 'sPs1kXfJ',
            time: 1700000000,
            event: 'message',
            topic: new URL(request.url).pathname.slice(1),
          },
          200,
        ),
  )

/** PagerDuty's Events API v2: `202 {status: "success", dedup_key}`. */
export const pagerdutyFake = (origin = 'https://events.pagerduty.com') =>
  fakeService(origin, (_request, status, body) => {
    if (status && status !== 202)
      return json({ status: 'invalid event', message: 'Event object is invalid' }, status)
    const event = JSON.parse(body) as { dedup_key: string }
    return json({ status: 'success', message: 'Event processed', dedup_key: event.dedup_key }, 202)
  })

export interface Channel {
  id: string
  name: string
  kind: string
  settings: Record<string, unknown>
  target: string
  hasSecret: boolean
  apiBaseUrl: string | null
}

/** The config of each kind's test channel. */
export const CONFIGS = {
  email: { recipients: ['oncall@channels.example.com'] },
  webhook: { url: HOOK_URL, secret: HOOK_SECRET },
  slack: { webhookUrl: SLACK_URL },
  discord: { webhookUrl: DISCORD_URL },
  telegram: { botToken: BOT_TOKEN, chatId: '-1005550001111' },
  ntfy: { topicUrl: NTFY_TOPIC, accessToken: NTFY_TOKEN },
  pagerduty: { routingKey: ROUTING_KEY },
} as const

export type Kind = keyof typeof CONFIGS

export function createChannel(
  caller: Caller,
  kind: Kind,
  fields: Record<string, unknown> = {},
): Promise<Channel> {
  return ok<Channel>(
    'notifications.channels.create',
    { kind, name: `${kind} ${crypto.randomUUID().slice(0, 6)}`, config: CONFIGS[kind], ...fields },
    caller,
  )
}
