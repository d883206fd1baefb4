import { beforeAll, describe, expect, it } from 'vitest'
import {
  CHANNEL_SECRETS,
  type Channel,
  CONFIGS,
  createChannel,
  HOOK_SECRET,
  type Kind,
  SLACK_URL,
  slackFake,
} from './helpers/channels'
import { type Caller, call, ok } from './helpers/http'
import { adminSession, operatorSession, tokenFor } from './helpers/principals'
import { createProbe } from './probes/catalogue-fixture'

// The notification channels' catalogue: who may change and read them, what each kind accepts, that a secret
// never comes back, the test button, probes naming channels by id, and the delivery log.

let admin: Caller
let operator: Caller
let viewer: Caller

beforeAll(async () => {
  admin = await adminSession()
  operator = await operatorSession(admin)
  viewer = await tokenFor(admin, ['probes:view'])
})

interface Problem {
  status: number
  issues?: { path: string; message: string }[]
  detail: string
}

const problem = async (name: string, input: unknown, caller = admin) => {
  const answer = await call<Problem>(name, input, caller)
  return { status: answer.status, body: answer.body, text: answer.text }
}

function expectNoSecret(text: string): void {
  for (const secret of CHANNEL_SECRETS) expect(text).not.toContain(secret)
}

describe('notifications.channels: access', () => {
  it('should let probes:manage create and probes:view only read', async () => {
    const input = { kind: 'slack', name: 'ops slack', config: CONFIGS.slack }
    expect((await call('notifications.channels.create', input, viewer)).status).toBe(403)
    expect((await call('notifications.channels.create', input, operator)).status).toBe(403)
    const created = await createChannel(admin, 'slack')
    expect((await call('notifications.channels.list', {}, viewer)).status).toBe(200)
    expect((await call('notifications.channels.deliveries', { id: created.id }, viewer)).status).toBe(200)
    for (const name of ['test', 'remove'])
      expect((await call(`notifications.channels.${name}`, { id: created.id }, viewer)).status).toBe(403)
    expect(
      (await call('notifications.channels.update', { id: created.id, kind: 'slack', name: 'x' }, viewer))
        .status,
    ).toBe(403)
  })
})

describe('notifications.channels: secrets', () => {
  it('should seal every kind’s secret and answer only a hint, in create, update, list and the audit log', async () => {
    const kinds = Object.keys(CONFIGS) as Kind[]
    const created: Channel[] = []
    for (const kind of kinds) {
      const answer = await call<Channel>(
        'notifications.channels.create',
        { kind, name: `${kind} secrets`, config: CONFIGS[kind] },
        admin,
      )
      expect(answer.status).toBe(200)
      expectNoSecret(answer.text)
      created.push(answer.body)
    }
    expect(created.map((channel) => [channel.kind, channel.hasSecret, channel.target])).toEqual([
      ['email', false, '1 recipient'],
      ['webhook', true, 'https://hooks.channel-receiver.example.com/***'],
      ['slack', true, 'https://hooks.slack.com/***'],
      ['discord', true, 'https://discord.com/***'],
      ['telegram', true, 'chat -1005550001111'],
      ['ntfy', true, 'https://ntfy.sh/***'],
      ['pagerduty', true, 'routing key …3456'],
    ])
    expect(created[0]?.settings).toEqual({ recipients: ['oncall@channels.example.com'] })
    expect(created[4]?.settings).toEqual({ chatId: '-1005550001111' })
    const list = await call('notifications.channels.list', { limit: 500 }, viewer)
    expectNoSecret(list.text)
    const slack = created[2] as Channel
    const renamed = await call(
      'notifications.channels.update',
      { id: slack.id, kind: 'slack', name: 'renamed', config: { webhookUrl: `${SLACK_URL}9` } },
      admin,
    )
    expect(renamed.status).toBe(200)
    expectNoSecret(renamed.text)
    const audit = await call('audit.list', { targetId: slack.id }, admin)
    expect(audit.text).toContain('notification-channel.update')
    expect(audit.text).toContain('"targetName":"renamed"')
    expectNoSecret(audit.text)
    const row = await (await import('./helpers/changelog')).workerEnv.DB.prepare(
      'SELECT secret_sealed FROM channels WHERE id = ?',
    )
      .bind(slack.id)
      .first<{ secret_sealed: string }>()
    expectNoSecret(row?.secret_sealed ?? '')
  })
})

describe('notifications.channels: the signed webhook’s URL path', () => {
  it('should show the webhook’s origin only: to probes:view, to probes:manage and in the audit log', async () => {
    const path = '/catch/123456/s3cr3tpathtoken/'
    const manager = await tokenFor(admin, ['probes:manage', 'probes:view'])
    const created = await ok<Channel>(
      'notifications.channels.create',
      {
        kind: 'webhook',
        name: 'zap',
        config: { url: `https://hooks.zap-example.com${path}`, secret: HOOK_SECRET },
      },
      manager,
    )
    expect(created.target).toBe('https://hooks.zap-example.com/***')
    await ok(
      'notifications.channels.update',
      {
        id: created.id,
        kind: 'webhook',
        config: { url: `https://hooks.zap-example.com${path}2/`, secret: HOOK_SECRET },
      },
      manager,
    )
    for (const reader of [viewer, manager]) {
      const list = await call('notifications.channels.list', { limit: 500 }, reader)
      expect(list.text).toContain('https://hooks.zap-example.com/***')
      expect(list.text).not.toContain('s3cr3tpathtoken')
    }
    const audit = await call('audit.list', { targetId: created.id }, await tokenFor(admin, ['audit:view']))
    expect(audit.text).toContain('notification-channel.update')
    expect(audit.text).toContain('https://hooks.zap-example.com/***')
    expect(audit.text).not.toContain('s3cr3tpathtoken')
    expect(audit.text).not.toContain('/catch/')
  })
})

describe('notifications.channels: validation', () => {
  it('should name the field and why, and change nothing', async () => {
    const before = (await ok<{ channels: Channel[] }>('notifications.channels.list', { limit: 500 }, admin))
      .channels
    const cases: [Record<string, unknown>, string][] = [
      [{ kind: 'telegram', name: 't', config: { botToken: 'nope', chatId: '-100' } }, 'config.botToken'],
      [
        { kind: 'telegram', name: 't', config: { botToken: CONFIGS.telegram.botToken, chatId: 'me' } },
        'config.chatId',
      ],
      [{ kind: 'pagerduty', name: 'p', config: { routingKey: 'short' } }, 'config.routingKey'],
      [{ kind: 'slack', name: 's', config: { webhookUrl: 'ftp://hooks.slack.com/x' } }, 'config.webhookUrl'],
      [
        { kind: 'webhook', name: 'w', config: { url: 'https://hooks.example.com/x', secret: 'short' } },
        'config.secret',
      ],
      [{ kind: 'email', name: 'e', config: { recipients: [] } }, 'config.recipients'],
      [
        { kind: 'email', name: 'e', config: CONFIGS.email, apiBaseUrl: 'https://mail.example.com' },
        'apiBaseUrl',
      ],
      [{ kind: 'ntfy', name: 'n', config: { topicUrl: 'https://10.0.0.5/alerts' } }, 'config.topicUrl'],
      [
        { kind: 'pagerduty', name: 'p', config: CONFIGS.pagerduty, apiBaseUrl: 'http://127.0.0.1:8080' },
        'apiBaseUrl',
      ],
      [{ kind: 'sms', name: 'x' }, 'kind'],
      [{ kind: 'slack', name: 's', config: { ...CONFIGS.slack, extra: 1 } }, 'config.extra'],
    ]
    for (const [input, path] of cases) {
      const answer = await problem('notifications.channels.create', input)
      expect(answer.status, JSON.stringify(input)).toBe(400)
      expect(
        answer.body.issues?.map((issue) => issue.path),
        answer.text,
      ).toContain(path)
    }
    const slack = await createChannel(admin, 'slack')
    const changeKind = await problem('notifications.channels.update', {
      id: slack.id,
      kind: 'discord',
      config: CONFIGS.discord,
    })
    expect(changeKind.status).toBe(400)
    expect(changeKind.body.issues?.[0]?.path).toBe('kind')
    const baseWithoutSecret = await problem('notifications.channels.update', {
      id: slack.id,
      kind: 'slack',
      apiBaseUrl: 'https://proxy.example.com',
    })
    expect(baseWithoutSecret.body.issues?.[0]?.path).toBe('config')
    const after = (await ok<{ channels: Channel[] }>('notifications.channels.list', { limit: 500 }, admin))
      .channels
    expect(after.length).toBe(before.length + 1)
    expect((await problem('notifications.channels.test', { id: 'missing' })).status).toBe(404)
  })
})

describe('notifications.channels.test', () => {
  it('should send a test message and show the service’s answer, logged in the channel’s deliveries', async () => {
    const slack = slackFake()
    const channel = await createChannel(admin, 'slack')
    const sent = await ok<{ delivered: boolean; status: number; answer: string }>(
      'notifications.channels.test',
      { id: channel.id },
      admin,
    )
    expect(sent).toEqual({
      delivered: true,
      status: 200,
      outcome: 'delivered',
      serviceCode: null,
      answer: 'answered 200: delivered',
    })
    expect(slack.received).toHaveLength(1)
    expect(slack.received[0]?.json().text).toContain(`[TEST] ${channel.name}`)

    slack.statuses.push(200, 404)
    const refused = await ok<{ delivered: boolean; status: number; answer: string }>(
      'notifications.channels.test',
      { id: channel.id },
      admin,
    )
    expect(refused).toEqual({
      delivered: false,
      status: 404,
      outcome: 'not_found',
      serviceCode: 'invalid_payload',
      answer: 'answered 404: not found (invalid_payload)',
    })
    const log = await ok<{ deliveries: { event: string; status: string; answer: string }[] }>(
      'notifications.channels.deliveries',
      { id: channel.id },
      viewer,
    )
    expect(log.deliveries.map((d) => [d.event, d.status, d.answer])).toEqual([
      ['test', 'failed', 'answered 404: not found (invalid_payload)'],
      ['test', 'delivered', 'answered 200: delivered'],
    ])
  })
})

describe('probes and channels', () => {
  it('should refer to channels by id, refuse an unknown one, and refuse removing a channel a probe uses', async () => {
    const channel = await createChannel(admin, 'ntfy')
    const unknown = await problem('probes.create', {
      name: 'naming channels',
      type: 'http',
      targetKind: 'external',
      target: 'https://status.channels-example.com/health',
      notifyConfig: { channels: [channel.id, 'no-such-channel'] },
    })
    expect(unknown.status).toBe(400)
    expect(unknown.body.issues?.[0]?.path).toBe('notifyConfig.channels.1')

    const probe = await createProbe(admin, { name: 'uses ntfy', notifyConfig: { channels: [channel.id] } })
    expect((probe as unknown as { notifyConfig: { channels: string[] } }).notifyConfig.channels).toEqual([
      channel.id,
    ])
    const twice = await problem('probes.update', {
      id: probe.id,
      notifyConfig: { channels: [channel.id, channel.id] },
    })
    expect(twice.body.issues?.[0]?.path).toBe('notifyConfig.channels')
    const update = await problem('probes.update', { id: probe.id, notifyConfig: { channels: ['gone'] } })
    expect(update.body.issues?.[0]?.path).toBe('notifyConfig.channels.0')

    const inUse = await problem('notifications.channels.remove', { id: channel.id })
    expect(inUse.status).toBe(409)
    expect(inUse.body.detail).toContain(`uses ntfy (${probe.id})`)
    await ok('probes.update', { id: probe.id, notifyConfig: { channels: [] } }, admin)
    expect(await ok('notifications.channels.remove', { id: channel.id }, admin)).toEqual({ removed: true })
    expect((await problem('notifications.channels.deliveries', { id: channel.id })).status).toBe(404)
  })

  it('should let an archived probe keep its channel ids without holding the channel', async () => {
    const channel = await createChannel(admin, 'discord')
    const probe = await createProbe(admin, { notifyConfig: { channels: [channel.id] } })
    await ok('probes.archive', { id: probe.id }, admin)
    expect(await ok('notifications.channels.remove', { id: channel.id }, admin)).toEqual({ removed: true })
  })
})
