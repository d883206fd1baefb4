import { beforeEach, describe, expect, it, type MockInstance, vi } from 'vitest'
import type { NodeHealthNotification } from '../src/fleet/health-notification'
import type { JobMessage } from '../src/jobs/messages'
import { verifyServiceSignature } from '../src/lib/service-signature'
import { MAX_RECONCILE_ATTEMPTS } from '../src/routes/reconcile-job'
import { siteWithToken } from './custom-hostnames/fixture'
import { captureJobs, type SentJob } from './dns-servers/run-job'
import { FakeNodeAgent } from './fakes/node-agent'
import { runCron, workerEnv } from './helpers/changelog'
import { type Caller, ok } from './helpers/http'
import { drainJobs, runJob } from './helpers/jobs'
import { fakeOrigin } from './helpers/outbound'
import { adminSession, operatorSession } from './helpers/principals'

// Node health: a minute cron fans out one agent health check per node through the queue; nodes.get and
// nodes.list show the result; a node unreachable for 3 checks in a row, or refusing its config, alerts the
// targets of the probes on it, and the first good check after that sends the all-clear.

interface Health {
  state: string
  checkedAt: string | null
  lastSeenAt: string | null
  agentVersion: string | null
  appliedConfigVersion: number | null
  error: string | null
}

const AGENT_SECRET = 'agent-secret-0123456789'
const HOOKS = 'https://hooks.health.example.com'
const WEBHOOK_SECRET = 'node-alert-webhook-secret-0123'
const ONCALL = 'oncall@example.com'
const MINUTE = 60_000

let admin: Caller
let sent: SentJob[]
let agent: FakeNodeAgent
let nodeId: string
let instanceId: string
let emailSpy: MockInstance
let clock: number

beforeEach(async () => {
  sent = captureJobs()
  admin = await adminSession()
  const site = await siteWithToken(admin)
  nodeId = site.nodeId
  instanceId = site.instanceId
  const node = await ok<{ agentUrl: string }>('nodes.get', { id: nodeId }, admin)
  agent = new FakeNodeAgent(node.agentUrl, AGENT_SECRET).install()
  emailSpy = vi.spyOn(workerEnv.ALERT_EMAIL, 'send').mockResolvedValue({ messageId: '<m@panel.test>' })
  clock = Math.floor(Date.now() / MINUTE) * MINUTE
})

const health = async () => (await ok<{ health: Health }>('nodes.get', { id: nodeId }, admin)).health
const ofType = <T extends JobMessage['type']>(type: T) =>
  sent.filter((job) => job.body.type === type).map((job) => job.body as Extract<JobMessage, { type: T }>)

/** The minute cron at the next minute, then this node's health check (others' are dropped). */
async function minute(): Promise<void> {
  clock += MINUTE
  await runCron('* * * * *', clock)
  const checks = ofType('node.health-check').filter((job) => job.nodeId === nodeId)
  expect(checks).toEqual([{ type: 'node.health-check', nodeId, scheduledAt: clock }])
  sent.splice(0, sent.length, ...sent.filter((job) => job.body.type !== 'node.health-check'))
  for (const check of checks) expect(await runJob(check)).toEqual({ acked: true, retryDelay: null })
}

/** A tcp probe on the node whose targets hear its alerts: the webhook and one email address. */
async function watchNode(): Promise<{ body: string; headers: Headers }[]> {
  const received: { body: string; headers: Headers }[] = []
  fakeOrigin(HOOKS, async (request) => {
    received.push({ body: await request.text(), headers: request.headers })
    return new Response(null, { status: 204 })
  })
  await ok(
    'probes.create',
    {
      name: 'edge agent',
      type: 'tcp',
      targetKind: 'node',
      targetId: nodeId,
      target: 'agent.health.example.com:443',
      notifyConfig: { emails: [ONCALL], webhookUrl: `${HOOKS}/node` },
      webhookSecret: WEBHOOK_SECRET,
    },
    admin,
  )
  return received
}

/** Delivers the queued node alerts and answers what they announced. */
async function deliverAlerts(): Promise<NodeHealthNotification[]> {
  const alerts = ofType('node.alert')
  sent.splice(0, sent.length, ...sent.filter((job) => job.body.type !== 'node.alert'))
  for (const alert of alerts) expect(await runJob(alert)).toEqual({ acked: true, retryDelay: null })
  // One notification per alert: the webhook's copy (the email copies carry the same one).
  return alerts.filter((alert) => alert.target === 'webhook').map((alert) => alert.notification)
}

describe('node health checks', () => {
  it('should be unknown before the first check, then ok with what the agent reported, in get and list', async () => {
    expect(await health()).toMatchObject({ state: 'unknown', checkedAt: null })
    agent.edge = { configVersion: 4, vhosts: [], forwards: [] }
    await minute()
    const expected = {
      state: 'ok',
      checkedAt: new Date(clock).toISOString(),
      lastSeenAt: new Date(clock).toISOString(),
      agentVersion: 'fake-1.0.0',
      appliedConfigVersion: 4,
      error: null,
    }
    expect(await health()).toEqual(expected)
    const listed = await ok<{ id: string; health: Health }[]>('nodes.list', {}, await operatorSession(admin))
    expect(listed.find((node) => node.id === nodeId)?.health).toEqual(expected)
    expect(agent.calls.filter((call) => call.path === '/v2/health')).toHaveLength(1)
  })

  it('should count a check once when its job runs twice, and never let an older check overwrite a newer one', async () => {
    agent.down = true
    await minute()
    const message = { type: 'node.health-check' as const, nodeId, scheduledAt: clock }
    expect(await runJob(message)).toEqual({ acked: true, retryDelay: null })
    expect(await runJob({ ...message, scheduledAt: clock - MINUTE })).toEqual({
      acked: true,
      retryDelay: null,
    })
    await minute()
    // Two checks, not three or four: no alert yet.
    expect(ofType('node.alert')).toEqual([])
    expect(await health()).toMatchObject({ state: 'unreachable', checkedAt: new Date(clock).toISOString() })
  })

  it('should show unreachable with the error at once, alert after 3 checks in a row, and send the all-clear', async () => {
    const received = await watchNode()
    await minute()
    const seen = new Date(clock).toISOString()
    agent.down = true
    await minute()
    await minute()
    expect(await health()).toMatchObject({
      state: 'unreachable',
      lastSeenAt: seen,
      agentVersion: 'fake-1.0.0',
      error: expect.stringMatching(/^the node agent at https:\/\/agent\..* did not answer/),
    })
    expect(ofType('node.alert')).toEqual([])
    await minute()
    const [down] = await deliverAlerts()
    expect(down).toEqual({
      event: 'node.health_changed',
      node: { id: nodeId, name: expect.any(String), agentUrl: agent.agentUrl },
      previousState: 'ok',
      state: 'unreachable',
      at: new Date(clock).toISOString(),
      error: expect.stringContaining('did not answer'),
      lastSeenAt: seen,
    })
    expect(received).toHaveLength(1)
    const [hit] = received
    if (!hit) throw new Error('no webhook')
    expect(await verifyServiceSignature(hit.body, hit.headers, WEBHOOK_SECRET)).toEqual({ ok: true })
    expect(JSON.parse(hit.body)).toEqual(down)
    expect(emailSpy).toHaveBeenCalledTimes(1)
    expect(emailSpy.mock.calls[0]?.[0]).toMatchObject({
      to: ONCALL,
      subject: expect.stringMatching(/^\[NODE UNREACHABLE\] /),
      text: expect.stringContaining('did not answer'),
    })
    // Still down: announced once.
    await minute()
    expect(ofType('node.alert')).toEqual([])
    agent.down = false
    await minute()
    const [clear] = await deliverAlerts()
    expect(clear).toMatchObject({ previousState: 'unreachable', state: 'ok', error: null })
    expect(emailSpy.mock.calls[1]?.[0]).toMatchObject({ subject: expect.stringMatching(/^\[NODE OK\] /) })
    expect(await health()).toMatchObject({ state: 'ok', error: null })
    const probes = await ok<{ id: string }[]>('probes.list', { targetKind: 'node', targetId: nodeId }, admin)
    const probe = await ok<{ deliveries: { target: string; status: string; event: string }[] }>(
      'probes.get',
      { id: probes[0]?.id },
      admin,
    )
    expect(probe.deliveries).toContainEqual(
      expect.objectContaining({ target: 'webhook', status: 'delivered', event: 'node:unreachable->ok' }),
    )
  })

  it('should count an agent whose proxy does not answer as unreachable, naming the proxy', async () => {
    agent.proxyReachable = false
    await minute()
    expect(await health()).toMatchObject({
      state: 'unreachable',
      lastSeenAt: new Date(clock).toISOString(),
      error: 'the node agent answers, but its proxy (caddy) does not answer the agent',
    })
  })

  it('should show refusing with the refusal, alert it, and clear once the node takes its config', async () => {
    await watchNode()
    agent.refuseApply = 'loading new config: http.handlers.reverse_proxy: invalid upstream'
    const route = await ok<{ id: string }>(
      'routes.createRaw',
      { instanceId, listenPort: 9100, targetPort: 80 },
      admin,
    )
    await drainJobs(sent, 'route.')
    await minute()
    expect(await health()).toMatchObject({
      state: 'refusing',
      lastSeenAt: new Date(clock).toISOString(),
      error: 'the node agent answered 422: loading new config: http.handlers.reverse_proxy: invalid upstream',
    })
    const [refusing] = await deliverAlerts()
    expect(refusing).toMatchObject({
      previousState: 'ok',
      state: 'refusing',
      error: expect.stringContaining('422'),
    })
    agent.refuseApply = null
    await ok('routes.reconcile', { id: route.id }, admin)
    await drainJobs(sent, 'route.')
    await minute()
    expect(await health()).toMatchObject({ state: 'ok', error: null })
    expect(await deliverAlerts()).toEqual([
      expect.objectContaining({ previousState: 'refusing', state: 'ok' }),
    ])
  })

  it('should alert a probe added while the problem stands, and hold a new alert back during the cooldown', async () => {
    agent.down = true
    for (let i = 0; i < 3; i++) await minute()
    expect(ofType('node.alert')).toEqual([])
    // Nobody heard of it: a probe on the node from now on hears it at the next check.
    await watchNode()
    await minute()
    expect(await deliverAlerts()).toEqual([expect.objectContaining({ state: 'unreachable' })])
    agent.down = false
    await minute()
    expect(await deliverAlerts()).toEqual([expect.objectContaining({ state: 'ok' })])
    // Down again at once: the next problem alert waits until 10 minutes after the last one, then goes out.
    agent.down = true
    for (let i = 0; i < 8; i++) await minute()
    expect(ofType('node.alert')).toEqual([])
    await minute()
    expect(await deliverAlerts()).toEqual([expect.objectContaining({ state: 'unreachable' })])
  })
})

describe('a node that answers again', () => {
  const routeStatus = async () =>
    (await ok<{ status: string }[]>('routes.listForInstance', { instanceId }, admin)).map((r) => r.status)

  it('should push its routes again when the last push found its agent down', async () => {
    agent.down = true
    await ok('routes.createRaw', { instanceId, listenPort: 9200, targetPort: 80 }, admin)
    const job = ofType('route.reconcile')[0]
    if (!job) throw new Error('no reconcile queued')
    sent.length = 0
    await runJob(job, MAX_RECONCILE_ATTEMPTS)
    expect(await routeStatus()).toEqual(['error'])
    await minute()
    expect(ofType('route.reconcile')).toEqual([])
    agent.down = false
    await minute()
    expect(ofType('route.reconcile')).toEqual([{ type: 'route.reconcile', nodeId, version: 2 }])
    await drainJobs(sent, 'route.')
    expect(await routeStatus()).toEqual(['active'])
    // Served now: the next check pushes nothing.
    await minute()
    expect(ofType('route.reconcile')).toEqual([])
  })

  it('should push its routes again when its agent lost what it confirmed', async () => {
    await ok('routes.createRaw', { instanceId, listenPort: 9300, targetPort: 80 }, admin)
    await drainJobs(sent, 'route.')
    expect(agent.edge.configVersion).toBe(1)
    // The agent restarted without its state.
    agent.edge = { configVersion: 0, vhosts: [], forwards: [] }
    await minute()
    expect(await health()).toMatchObject({ state: 'ok', appliedConfigVersion: 0 })
    await drainJobs(sent, 'route.')
    expect(agent.edge).toMatchObject({ configVersion: 2, forwards: [{ listenPort: 9300 }] })
    expect(await routeStatus()).toEqual(['active'])
  })
})
