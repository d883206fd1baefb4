import { beforeAll, describe, expect, it, vi } from 'vitest'
import { verifyServiceSignature } from '../src/lib/service-signature'
import type { ProbeNotification, ProbeNotifyMessage } from '../src/notifications/probes/jobs'
import { runJobs, workerEnv } from './helpers/changelog'
import {
  BOT_TOKEN,
  createChannel,
  DISCORD_URL,
  discordFake,
  HOOK_SECRET,
  NTFY_TOKEN,
  ntfyFake,
  pagerdutyFake,
  ROUTING_KEY,
  slackFake,
  telegramFake,
} from './helpers/channels'
import { type Caller, ok } from './helpers/http'
import { fakeOrigin } from './helpers/outbound'
import { adminSession } from './helpers/principals'
import { createProbe } from './probes/catalogue-fixture'

// Each channel kind speaks its service's own wire format, checked against a fake of that service: what is
// POSTed where, with which headers and body, and how the service's answer is read.

let admin: Caller

beforeAll(async () => {
  admin = await adminSession()
})

type TestResult = { delivered: boolean; status: number | null; answer: string }
const testButton = (id: string) => ok<TestResult>('notifications.channels.test', { id }, admin)

function notification(
  probe: { id: string; name: string },
  change: Partial<ProbeNotification> = {},
): ProbeNotification {
  return {
    event: 'probe.state_changed',
    probe: {
      id: probe.id,
      name: probe.name,
      type: 'http',
      targetKind: 'external',
      targetId: null,
      target: 'https://shop.wire-example.com/health',
    },
    previousState: 'up',
    state: 'down',
    at: new Date().toISOString(),
    result: { at: new Date().toISOString(), outcome: 'down', latencyMs: 120, detail: 'HTTP 503' },
    downSince: new Date().toISOString(),
    ...change,
  }
}

/** Runs the probe.notify job delivering `note` to the channel, as the queue would. */
async function deliver(probeId: string, channelId: string, note: ProbeNotification, attempts = 1) {
  const message: ProbeNotifyMessage = {
    type: 'probe.notify',
    probeId,
    target: `channel:${channelId}`,
    notification: note,
  }
  const result = await runJobs([{ body: message, attempts }])
  return { acked: result.explicitAcks.includes('msg-0'), retryDelay: result.retryDelays['msg-0'] ?? null }
}

async function probeWith(channelId: string, name = 'shop health') {
  const probe = await createProbe(admin, { name, notifyConfig: { channels: [channelId] } })
  return { id: probe.id, name }
}

describe('slack', () => {
  it('should POST {text, blocks} to the incoming webhook, escaping mrkdwn', async () => {
    const slack = slackFake()
    const channel = await createChannel(admin, 'slack')
    const probe = await probeWith(channel.id, 'shop <api> & co')
    expect(await deliver(probe.id, channel.id, notification(probe))).toEqual({
      acked: true,
      retryDelay: null,
    })
    const [hit] = slack.received
    expect(hit?.url.pathname).toBe('/services/T0PANEL/B0ALERTS/s3cr3tSlackToken0123')
    expect(hit?.headers.get('content-type')).toBe('application/json')
    const body = hit?.json() as {
      text: string
      blocks: { type: string; text: { type: string; text: string } }[]
    }
    expect(Object.keys(body).sort()).toEqual(['blocks', 'text'])
    expect(body.text).toContain('[DOWN] shop <api> & co')
    expect(body.blocks[0]?.type).toBe('section')
    expect(body.blocks[0]?.text.type).toBe('mrkdwn')
    expect(body.blocks[0]?.text.text).toContain('*[DOWN] shop &lt;api&gt; &amp; co*')
    expect(body.blocks[0]?.text.text).toContain('Result: HTTP 503')
  })
})

describe('discord', () => {
  it('should POST {content, embeds} with ?wait=true and mentions disabled, and read the created message', async () => {
    const discord = discordFake()
    const channel = await createChannel(admin, 'discord')
    expect(await testButton(channel.id)).toMatchObject({ delivered: true, status: 200 })
    const [hit] = discord.received
    expect(`${hit?.url.origin}${hit?.url.pathname}`).toBe(DISCORD_URL)
    expect(hit?.url.searchParams.get('wait')).toBe('true')
    const body = hit?.json() as {
      content: string
      embeds: { title: string; description: string; color: number }[]
    }
    expect(body.content).toBe(`[TEST] ${channel.name}`)
    expect(body.embeds[0]).toMatchObject({ title: `[TEST] ${channel.name}`, color: 0x2e9e5b })
    expect(hit?.json().allowed_mentions).toEqual({ parse: [] })
  })

  it('should retry after Discord’s rate limit', async () => {
    const discord = discordFake()
    discord.statuses.push(429)
    const channel = await createChannel(admin, 'discord')
    const probe = await probeWith(channel.id)
    const note = notification(probe)
    const first = await deliver(probe.id, channel.id, note)
    expect(first.retryDelay).toBeGreaterThanOrEqual(2)
    const log = await ok<{ deliveries: { status: string; attempts: number; answer: string }[] }>(
      'notifications.channels.deliveries',
      { id: channel.id },
      admin,
    )
    expect(log.deliveries[0]).toMatchObject({ status: 'pending', attempts: 1 })
    expect(log.deliveries[0]?.answer).toContain('answered 429')
  })
})

describe('telegram', () => {
  it('should POST {chat_id, text} to /bot<token>/sendMessage and keep Telegram’s error description', async () => {
    const telegram = telegramFake()
    const channel = await createChannel(admin, 'telegram')
    const sent = await testButton(channel.id)
    expect(sent.delivered).toBe(true)
    expect(sent.answer).toBe('answered 200: delivered')
    const [hit] = telegram.received
    expect(hit?.url.pathname).toBe(`/bot${BOT_TOKEN}/sendMessage`)
    expect(hit?.json()).toMatchObject({ chat_id: '-1005550001111', text: expect.stringContaining('[TEST]') })

    telegram.statuses.push(400)
    const refused = await testButton(channel.id)
    expect(refused).toMatchObject({ delivered: false, status: 400 })
    expect(refused.answer).toBe('answered 400: refused by the service (Bad Request: chat not found)')
  })
})

describe('ntfy', () => {
  it('should POST the text to the topic with Title, Priority, Tags and a Bearer token', async () => {
    const ntfy = ntfyFake()
    const channel = await createChannel(admin, 'ntfy')
    const probe = await probeWith(channel.id, 'Café API')
    await deliver(probe.id, channel.id, notification(probe))
    await deliver(
      probe.id,
      channel.id,
      notification(probe, { previousState: 'down', state: 'up', at: new Date(Date.now() + 1).toISOString() }),
    )
    const [down, up] = ntfy.received
    expect(down?.url.pathname).toBe('/panel-alerts-s3cr3tTopic')
    expect(down?.headers.get('authorization')).toBe(`Bearer ${NTFY_TOKEN}`)
    expect(down?.headers.get('priority')).toBe('5')
    expect(down?.headers.get('tags')).toBe('rotating_light')
    // A non-ASCII title travels as an RFC 2047 encoded word, which ntfy decodes.
    expect(down?.headers.get('title')).toBe(
      `=?UTF-8?B?${btoa(String.fromCharCode(...new TextEncoder().encode('[DOWN] Café API')))}?=`,
    )
    expect(down?.body).toContain('Café API is down (it was up).')
    expect(up?.headers.get('priority')).toBe('3')
    expect(up?.headers.get('tags')).toBe('white_check_mark')
  })

  it('should send to a self-hosted server through apiBaseUrl', async () => {
    const selfHosted = ntfyFake('https://ntfy.selfhosted-example.com')
    const channel = await createChannel(admin, 'ntfy', { apiBaseUrl: 'https://ntfy.selfhosted-example.com' })
    expect(channel.apiBaseUrl).toBe('https://ntfy.selfhosted-example.com')
    expect((await testButton(channel.id)).delivered).toBe(true)
    expect(selfHosted.received[0]?.url.pathname).toBe('/panel-alerts-s3cr3tTopic')
  })
})

describe('pagerduty', () => {
  it('should trigger on down and resolve on up with one dedup key per probe', async () => {
    const pagerduty = pagerdutyFake()
    const channel = await createChannel(admin, 'pagerduty')
    const probe = await probeWith(channel.id)
    const other = await probeWith(channel.id, 'another')
    await deliver(probe.id, channel.id, notification(probe))
    await deliver(other.id, channel.id, notification(other, { state: 'degraded' }))
    await deliver(
      probe.id,
      channel.id,
      notification(probe, { previousState: 'down', state: 'up', at: new Date(Date.now() + 5).toISOString() }),
    )
    const [trigger, degraded, resolve] = pagerduty.received.map((hit) => hit.json())
    expect(pagerduty.received[0]?.url.pathname).toBe('/v2/enqueue')
    expect(trigger).toEqual({
      routing_key: ROUTING_KEY,
      event_action: 'trigger',
      dedup_key: `probe-${probe.id}`,
      payload: {
        summary: '[DOWN] shop health',
        source: 'https://shop.wire-example.com/health',
        severity: 'critical',
        custom_details: { text: expect.stringContaining('HTTP 503') },
      },
    })
    expect(degraded).toMatchObject({
      event_action: 'trigger',
      dedup_key: `probe-${other.id}`,
      payload: { severity: 'warning' },
    })
    expect(resolve).toEqual({
      routing_key: ROUTING_KEY,
      event_action: 'resolve',
      dedup_key: `probe-${probe.id}`,
    })
    const log = await ok<{ deliveries: { event: string; status: string; answer: string }[] }>(
      'notifications.channels.deliveries',
      { id: channel.id },
      admin,
    )
    expect(log.deliveries.map((d) => [d.event, d.status])).toEqual([
      ['down->up', 'delivered'],
      ['up->degraded', 'delivered'],
      ['up->down', 'delivered'],
    ])
    expect(log.deliveries[0]?.answer).toContain('answered 202')
  })

  it('should trigger and resolve at once for the test button, through a proxy given as apiBaseUrl', async () => {
    const proxy = pagerdutyFake('https://pd-proxy.example.com')
    const channel = await createChannel(admin, 'pagerduty', { apiBaseUrl: 'https://pd-proxy.example.com' })
    const sent = await testButton(channel.id)
    expect(sent).toMatchObject({ delivered: true, status: 202 })
    expect(proxy.received.map((hit) => [hit.json().event_action, hit.json().dedup_key])).toEqual([
      ['trigger', `test-${channel.id}`],
      ['resolve', `test-${channel.id}`],
    ])
  })
})

describe('webhook and email', () => {
  it('should sign the webhook body with the channel’s secret', async () => {
    const hooks: { body: string; headers: Headers }[] = []
    fakeOrigin('https://hooks.channel-receiver.example.com', async (request) => {
      hooks.push({ body: await request.text(), headers: request.headers })
      return new Response('thanks', { status: 200 })
    })
    const channel = await createChannel(admin, 'webhook')
    const probe = await probeWith(channel.id)
    await deliver(probe.id, channel.id, notification(probe))
    const [hook] = hooks
    expect(await verifyServiceSignature(hook?.body ?? '', hook?.headers, HOOK_SECRET)).toEqual({ ok: true })
    expect(JSON.parse(hook?.body ?? '{}')).toMatchObject({
      event: 'probe.state_changed',
      state: 'down',
      probe: { id: probe.id },
    })
  })

  it('should mail each recipient through the binding', async () => {
    const send = vi.spyOn(workerEnv.ALERT_EMAIL, 'send').mockResolvedValue({ messageId: '<chan@panel.test>' })
    const channel = await createChannel(admin, 'email')
    expect(await testButton(channel.id)).toEqual({
      delivered: true,
      status: null,
      outcome: 'delivered',
      serviceCode: null,
      answer: 'accepted as <chan@panel.test>',
    })
    expect(send).toHaveBeenCalledWith(
      expect.objectContaining({ to: 'oncall@channels.example.com', subject: `[TEST] ${channel.name}` }),
    )
    send.mockRestore()
  })
})
