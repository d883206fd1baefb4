import { beforeEach, describe, expect, it } from 'vitest'
import type { JobMessage } from '../src/jobs/messages'
import { verifyServiceSignature } from '../src/lib/service-signature'
import { MAX_RECONCILE_ATTEMPTS } from '../src/routes/reconcile-job'
import { siteWithToken } from './custom-hostnames/fixture'
import { captureJobs, type SentJob } from './dns-servers/run-job'
import { FakeNodeAgent } from './fakes/node-agent'
import { runCron } from './helpers/changelog'
import { type Caller, ok } from './helpers/http'
import { drainJobs, runJob } from './helpers/jobs'
import {
  deliverOps,
  OPS_EMAIL,
  OPS_SECRET,
  type OpsInbox,
  opsInbox,
  opsSilent,
} from './helpers/notifications'
import { adminSession, operatorSession } from './helpers/principals'

// Node health: a minute cron fans out one agent health check per node through the queue; nodes.get and
// nodes.list show the result; a node unreachable for 3 checks in a row, or refusing its config, raises its
// `node.unhealthy` operational notification, and the first good check after that sends the all-clear.

interface Health {
  state: string
  checkedAt: string | null
  lastSeenAt: string | null
  agentVersion: string | null
  appliedConfigVersion: number | null
  error: string | null
}

const AGENT_SECRET = 'agent-secret-0123456789'
const MINUTE = 60_000

let admin: Caller
let sent: SentJob[]
let agent: FakeNodeAgent
let nodeId: string
let instanceId: string
let clock: number

beforeEach(async () => {
  sent = captureJobs()
  admin = await adminSession()
  const site = await siteWithToken(admin)
  nodeId = site.nodeId
  instanceId = site.instanceId
  const node = await ok<{ agentUrl: string }>('nodes.get', { id: nodeId }, admin)
  agent = new FakeNodeAgent(node.agentUrl, AGENT_SECRET).install()
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

const KEY = () => `node:${nodeId}`

/** The operational notifications queued for this node, delivered: what the webhook received. */
async function deliverAlerts(inbox: OpsInbox) {
  return (await deliverOps(sent, inbox)).filter((notification) => notification.key === KEY())
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
    expect(ofType('notification.deliver')).toEqual([])
    expect(await health()).toMatchObject({ state: 'unreachable', checkedAt: new Date(clock).toISOString() })
  })

  it('should show unreachable with the error at once, alert after 3 checks in a row, and send the all-clear', async () => {
    const inbox = await opsInbox(admin)
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
    expect(ofType('notification.deliver')).toEqual([])
    await minute()
    const [down] = await deliverAlerts(inbox)
    expect(down).toEqual({
      event: 'operational.raised',
      kind: 'node.unhealthy',
      key: KEY(),
      subject: expect.stringMatching(/^Node .+ is unreachable$/),
      detail: expect.stringContaining(`Agent last answered: ${seen}`),
      link: 'https://panel.test/fleet',
      at: new Date(clock).toISOString(),
      openedAt: new Date(clock).toISOString(),
    })
    expect(down?.detail).toContain('did not answer')
    const [hit] = inbox.hooks
    if (!hit) throw new Error('no webhook')
    expect(await verifyServiceSignature(hit.body, hit.headers, OPS_SECRET)).toEqual({ ok: true })
    expect(inbox.email).toHaveBeenCalledTimes(1)
    expect(inbox.email.mock.calls[0]?.[0]).toMatchObject({
      to: OPS_EMAIL,
      subject: expect.stringMatching(/^\[PROBLEM\] Node .+ is unreachable$/),
      text: expect.stringContaining('did not answer'),
    })
    // Still down: announced once.
    await minute()
    expect(ofType('notification.deliver')).toEqual([])
    agent.down = false
    await minute()
    const [clear] = await deliverAlerts(inbox)
    expect(clear).toMatchObject({
      event: 'operational.resolved',
      key: KEY(),
      at: new Date(clock).toISOString(),
    })
    expect(inbox.email.mock.calls[1]?.[0]).toMatchObject({ subject: expect.stringMatching(/^\[RESOLVED\] /) })
    expect(await health()).toMatchObject({ state: 'ok', error: null })
    const log = await ok<{ deliveries: { key: string; channel: string; status: string; event: string }[] }>(
      'settings.notifications.deliveries',
      {},
      admin,
    )
    const mine = log.deliveries.filter((d) => d.key === KEY())
    // Newest first: the all-clear's two deliveries, then the problem's.
    expect(mine.map((d) => d.event)).toEqual(['resolved', 'resolved', 'raised', 'raised'])
    expect(mine.map((d) => `${d.event} ${d.channel} ${d.status}`).sort()).toEqual([
      'raised email delivered',
      'raised webhook delivered',
      'resolved email delivered',
      'resolved webhook delivered',
    ])
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
    const inbox = await opsInbox(admin)
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
    const [refusing] = await deliverAlerts(inbox)
    expect(refusing).toMatchObject({
      event: 'operational.raised',
      subject: expect.stringMatching(/refuses its configuration$/),
      detail: expect.stringContaining('422'),
    })
    agent.refuseApply = null
    await ok('routes.reconcile', { id: route.id }, admin)
    await drainJobs(sent, 'route.')
    await minute()
    expect(await health()).toMatchObject({ state: 'ok', error: null })
    expect(await deliverAlerts(inbox)).toEqual([expect.objectContaining({ event: 'operational.resolved' })])
  })

  it('should announce a standing problem once recipients are set, and hold a new one back during the cooldown', async () => {
    await opsSilent(admin)
    agent.down = true
    for (let i = 0; i < 3; i++) await minute()
    expect(ofType('notification.deliver')).toEqual([])
    // Nobody was set to hear it: the minute after recipients are set, they hear of it.
    const inbox = await opsInbox(admin, { cooldownMinutes: 15 })
    await minute()
    expect(await deliverAlerts(inbox)).toEqual([expect.objectContaining({ event: 'operational.raised' })])
    agent.down = false
    await minute()
    expect(await deliverAlerts(inbox)).toEqual([expect.objectContaining({ event: 'operational.resolved' })])
    const cleared = clock
    // Down again at once: the next problem waits until 15 minutes after the all-clear, then goes out.
    agent.down = true
    while (clock < cleared + 14 * MINUTE) await minute()
    expect(await deliverAlerts(inbox)).toEqual([])
    await minute()
    expect(await deliverAlerts(inbox)).toEqual([
      expect.objectContaining({ event: 'operational.raised', at: new Date(clock).toISOString() }),
    ])
  })
})

describe('a removed node', () => {
  it('should send the all-clear of its announced problem when it is removed', async () => {
    const inbox = await opsInbox(admin)
    const lone = await ok<{ id: string; agentUrl: string }>(
      'nodes.create',
      {
        name: `lone-${crypto.randomUUID().slice(0, 8)}`,
        agentUrl: `https://agent-lone-${crypto.randomUUID().slice(0, 8)}.health.example.com`,
        agentSecret: AGENT_SECRET,
      },
      admin,
    )
    const loneAgent = new FakeNodeAgent(lone.agentUrl, AGENT_SECRET).install()
    loneAgent.down = true
    for (let i = 0; i < 3; i++) {
      clock += MINUTE
      expect(await runJob({ type: 'node.health-check', nodeId: lone.id, scheduledAt: clock })).toMatchObject({
        acked: true,
      })
    }
    const key = `node:${lone.id}`
    expect((await deliverOps(sent, inbox)).filter((n) => n.key === key).map((n) => n.event)).toEqual([
      'operational.raised',
    ])
    await ok('nodes.remove', { id: lone.id }, admin)
    expect((await deliverOps(sent, inbox)).filter((n) => n.key === key).map((n) => n.event)).toEqual([
      'operational.resolved',
    ])
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
