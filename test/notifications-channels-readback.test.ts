import { beforeAll, describe, expect, it } from 'vitest'
import type { ProbeNotifyMessage } from '../src/notifications/probes/jobs'
import { runJobs } from './helpers/changelog'
import { createChannel, fakeService, type Kind } from './helpers/channels'
import { type Caller, call, ok } from './helpers/http'
import { adminSession, tokenFor } from './helpers/principals'
import { createProbe } from './probes/catalogue-fixture'

// An admin chooses where a channel posts (apiBaseUrl), so what answers there must never be read back: the test
// button and every delivery log keep the status, its outcome and a documented error code, never the body.

const INTERNAL = 'https://internal.readback-example.com'
const LEAK = 'INTERNAL-ONLY-c0nfig-s3cret'
const LEAKY_JSON = JSON.stringify({
  apps: { tls: { on_demand: { permission: { endpoint: 'http://127.0.0.1:8791/ask' } } } },
  token: LEAK,
})

let admin: Caller
let viewer: Caller

beforeAll(async () => {
  admin = await adminSession()
  viewer = await tokenFor(admin, ['probes:view'])
})

interface TestResult {
  delivered: boolean
  status: number | null
  outcome: string
  serviceCode: string | null
  answer: string
}

const testButton = (id: string) => call<TestResult>('notifications.channels.test', { id }, admin)
const deliveries = (id: string) => call('notifications.channels.deliveries', { id }, viewer)

function expectNothingOf(text: string): void {
  for (const part of [LEAK, '127.0.0.1', 'on_demand', 'apps']) expect(text).not.toContain(part)
}

/** A service at INTERNAL answering `status` with `body` and optional headers to everything. */
function internalService(status: number, body: string, headers: Record<string, string> = {}) {
  return fakeService(INTERNAL, () => new Response(body, { status, headers }))
}

describe('notifications.channels.test: no read-back', () => {
  it('should answer a 200 with a secret-looking body as delivered, and keep none of it in the test or the log', async () => {
    const service = internalService(200, LEAKY_JSON, { 'content-type': 'application/json' })
    const channel = await createChannel(admin, 'slack', { apiBaseUrl: INTERNAL })
    const test = await testButton(channel.id)
    expect(service.received).toHaveLength(1)
    expect(test.status).toBe(200)
    expect(test.body).toEqual({
      delivered: true,
      status: 200,
      outcome: 'delivered',
      serviceCode: null,
      answer: 'answered 200: delivered',
    })
    expectNothingOf(test.text)
    const log = await deliveries(channel.id)
    expect(log.status).toBe(200)
    expect(log.text).toContain('answered 200: delivered')
    expectNothingOf(log.text)
  })

  it('should classify each answer by its status, with Retry-After, and quote no body that is not the service’s error shape', async () => {
    const channel = await createChannel(admin, 'slack', { apiBaseUrl: INTERNAL })
    const cases: [number, Record<string, string>, Partial<TestResult>][] = [
      [403, {}, { outcome: 'refused', answer: 'answered 403: refused by the service' }],
      [301, { location: 'https://elsewhere.example.com/' }, { outcome: 'refused' }],
      [404, {}, { outcome: 'not_found', answer: 'answered 404: not found' }],
      [410, {}, { outcome: 'not_found' }],
      [
        429,
        { 'retry-after': '30' },
        { outcome: 'rate_limited', answer: 'answered 429: rate limited, retry after 30 s' },
      ],
      [502, {}, { outcome: 'server_error', answer: 'answered 502: server error' }],
    ]
    for (const [status, headers, expected] of cases) {
      internalService(status, LEAKY_JSON, headers)
      const test = await testButton(channel.id)
      expect(test.body, String(status)).toMatchObject({
        delivered: false,
        status,
        serviceCode: null,
        ...expected,
      })
      expectNothingOf(test.text)
    }
    // A one-word body that is not one of Slack's documented words is not quoted either.
    internalService(400, LEAK)
    expect((await testButton(channel.id)).body).toMatchObject({ serviceCode: null })
    expectNothingOf((await deliveries(channel.id)).text)
  })

  it('should say why nothing answered in the network’s words', async () => {
    const channel = await createChannel(admin, 'slack', {
      apiBaseUrl: 'https://unreachable.readback-example.com',
    })
    const test = await testButton(channel.id)
    expect(test.body).toMatchObject({
      delivered: false,
      status: null,
      outcome: 'unreachable',
      serviceCode: null,
    })
    expect(test.body.answer).toMatch(/^unreachable: /)
  })

  it('should keep each service’s documented error code, and only that', async () => {
    const json = { 'content-type': 'application/json' }
    const str = JSON.stringify
    // Each kind: its error answer, the code kept from it, and the same shape with a secret where the code was.
    const cases: [Kind, number, string, string, string][] = [
      ['slack', 403, 'invalid_token', 'invalid_token', LEAK],
      [
        'discord',
        404,
        str({ message: 'Unknown Webhook', code: 10015 }),
        '10015',
        str({ message: 'x', code: LEAK }),
      ],
      [
        'telegram',
        400,
        str({ ok: false, error_code: 400, description: 'Bad Request: chat not found' }),
        'Bad Request: chat not found',
        str({ ok: false, error_code: 400, description: `Bad Request: ${LEAK}` }),
      ],
      [
        'ntfy',
        403,
        str({ code: 40301, http: 403, error: 'forbidden', link: 'https://ntfy.sh/docs/publish/' }),
        '40301',
        str({ code: LEAK, http: 403, error: 'forbidden' }),
      ],
      [
        'pagerduty',
        400,
        str({ status: 'invalid event', message: 'Event object is invalid', errors: [LEAK] }),
        'invalid event',
        str({ status: LEAK, message: 'Event object is invalid' }),
      ],
    ]
    for (const [kind, status, body, code, leaky] of cases) {
      internalService(status, body, kind === 'slack' ? {} : json)
      const channel = await createChannel(admin, kind, { apiBaseUrl: INTERNAL })
      const test = await testButton(channel.id)
      expect(test.body, kind).toMatchObject({ delivered: false, status, serviceCode: code })
      expect(test.body.answer, kind).toContain(`(${code})`)
      expectNothingOf(test.text)
      internalService(status, leaky, kind === 'slack' ? {} : json)
      const leaked = await testButton(channel.id)
      expect(leaked.body.serviceCode, kind).toBeNull()
      expectNothingOf(leaked.text)
      expectNothingOf((await deliveries(channel.id)).text)
    }
  })
})

describe('delivery logs: no read-back', () => {
  it('should log a probe notification’s failed attempt by its status and outcome, not the body', async () => {
    internalService(500, LEAKY_JSON, { 'content-type': 'application/json' })
    const channel = await createChannel(admin, 'discord', { apiBaseUrl: INTERNAL })
    const probe = await createProbe(admin, {
      name: 'readback probe',
      notifyConfig: { channels: [channel.id] },
    })
    const at = new Date().toISOString()
    const message: ProbeNotifyMessage = {
      type: 'probe.notify',
      probeId: probe.id,
      target: `channel:${channel.id}`,
      notification: {
        event: 'probe.state_changed',
        probe: {
          id: probe.id,
          name: 'readback probe',
          type: 'http',
          targetKind: 'external',
          targetId: null,
          target: 'https://shop.readback-example.com/',
        },
        previousState: 'up',
        state: 'down',
        at,
        result: null,
        downSince: at,
      },
    }
    await runJobs([{ body: message, attempts: 1 }])
    const log = await ok<{ deliveries: { status: string; answer: string }[] }>(
      'notifications.channels.deliveries',
      { id: channel.id },
      viewer,
    )
    expect(log.deliveries).toMatchObject([{ status: 'pending', answer: 'answered 500: server error' }])
    expectNothingOf(JSON.stringify(log))
  })
})
