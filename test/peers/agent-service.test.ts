import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { agentHealth } from '../../src/outside/node-agent'
import { zoneName } from '../custom-hostnames/fixture'
import { captureJobs, type SentJob } from '../dns-servers/run-job'
import { type Caller, ok } from '../helpers/http'
import { drainJobs, runJob } from '../helpers/jobs'
import { adminSession } from '../helpers/principals'
import {
  control,
  type EdgeNode,
  edgeNode,
  enrollPeerBoxes,
  fetchThroughCaddy,
  httpsThroughCaddy,
  peers,
  tcpRoundTrip,
  timedStep,
  withAgentRelay,
} from './peers'
import type { RelayedRequest } from './relay'

// The agent as an operator runs it: the bundle on the system Node, reached by the panel over HTTPS through the
// node's own Caddy under a certificate pebble issued for the agent's hostname, and a node that comes back by
// itself after its agent was killed (and its Caddy restarted empty), or catches up with a push it missed.

interface RouteRow {
  id: string
  status: string
  listenPort: number | null
}

const freePort = () => control<{ port: number }>('GET', '/free-port').then((free) => free.port)

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, seconds = 20): Promise<T> {
  let value = await read()
  for (let i = 0; i < seconds * 4 && !done(value); i++) {
    await new Promise((resolve) => setTimeout(resolve, 250))
    value = await read()
  }
  return value
}

describe('the agent as a service', () => {
  let admin: Caller
  let node: EdgeNode
  let zone: { id: string; name: string }
  let agentHostname: string
  let undoFetch: () => void
  let sent: SentJob[] = []
  let forwardPort: number

  beforeAll(async () => {
    admin = await adminSession()
    await enrollPeerBoxes(admin, 'service')
    zone = await ok('dnsServers.zones.create', { name: zoneName('service') }, admin)
    agentHostname = `agent.${zone.name}`
    // pebble validates HTTP-01 for the agent's own name against box 0, like any hostname.
    await ok(
      'dnsServers.zones.upsertRecord',
      { id: zone.id, name: agentHostname, type: 'A', ttl: 60, values: ['127.0.0.1'] },
      admin,
    )
    node = await edgeNode(admin, 'service', agentHostname)
    undoFetch = fetchThroughCaddy(new URL(node.agent.agentUrl).origin)
  })

  afterAll(() => {
    undoFetch?.()
  })

  beforeEach(() => {
    sent = captureJobs()
  })

  it('should be reached over HTTPS through its own vhost, under a certificate issued for its hostname', async () => {
    expect(node.agent.agentUrl).toBe(`https://${agentHostname}:${peers.httpsPort}`)
    const health = await timedStep('service: first call over HTTPS (issues the agent’s certificate)', () =>
      agentHealth(node.agent),
    )
    expect(health).toMatchObject({ contract: 'v2', appliedVersion: 0, proxy: { reachable: true } })
    const served = await httpsThroughCaddy(agentHostname)
    expect(served).toMatchObject({ ok: true, status: 405 })
    if (served.ok) expect(served.issuer).toContain('Pebble')
    forwardPort = await freePort()
    const route = await ok<RouteRow>(
      'routes.createRaw',
      { instanceId: node.instanceId, listenPort: forwardPort, targetPort: peers.echoPort },
      admin,
    )
    await timedStep('service: reconcile over HTTPS', () => drainJobs(sent, 'route.'))
    const routes = await ok<RouteRow[]>('routes.listForInstance', { instanceId: node.instanceId }, admin)
    expect(routes.find((r) => r.id === route.id)?.status).toBe('active')
    expect(await tcpRoundTrip(forwardPort, 'through the pushed forward')).toEqual({
      echoed: 'through the pushed forward',
    })
  })

  it('should serve its vhosts, forwards and ask gate again after it was killed, with no reconcile', async () => {
    await ok('customHostnames.settings.set', { siteId: node.siteId, allowedZones: [zone.name] }, admin)
    const served = `served.${zone.name}`
    const fresh = `fresh.${zone.name}`
    for (const hostname of [served, fresh]) {
      await ok('customHostnames.register', { siteId: node.siteId, hostname }, admin)
    }
    await timedStep('restart: hostnames, records and routes', () => drainJobs(sent, ''))
    expect(await httpsThroughCaddy(served)).toMatchObject({ ok: true, status: 200, body: `site ${served}` })
    const before = await agentHealth(node.agent)

    await timedStep('restart: kill the agent, restart Caddy empty, start the agent again', async () => {
      await control('POST', '/agent/kill')
      await control('POST', '/caddy/stop')
      await control('POST', '/caddy/start')
      await control('POST', '/agent/restart')
    })
    // Nobody answers for the panel yet: what serves now came from the agent's state directory alone.
    expect(await httpsThroughCaddy(served)).toMatchObject({ ok: true, status: 200, body: `site ${served}` })
    expect(await tcpRoundTrip(forwardPort, 'after the restart')).toEqual({ echoed: 'after the restart' })
    const issued = await timedStep('restart: the ask gate lets a new certificate through', () =>
      httpsThroughCaddy(fresh),
    )
    expect(issued).toMatchObject({ ok: true, status: 200, body: `site ${fresh}` })
    expect(await agentHealth(node.agent)).toMatchObject({ appliedVersion: before.appliedVersion })
    expect(sent.filter((job) => job.body.type === 'route.reconcile')).toEqual([])
    // The agent also asked the panel for the current state, first page by page (agent 0.4.0).
    const asked = await eventually(
      () => control<RelayedRequest | null>('GET', '/relay/next?wait=500'),
      (request) => request === null || request.path.includes('edge-state'),
    )
    expect(asked).toMatchObject({ method: 'POST', path: '/api/agent/v2/edge-state-parts' })
  })

  it('should catch up by itself with a push it missed while it was down', async () => {
    await control('POST', '/agent/kill')
    const missedPort = await freePort()
    await ok(
      'routes.createRaw',
      { instanceId: node.instanceId, listenPort: missedPort, targetPort: peers.echoPort },
      admin,
    )
    const job = sent.find((j) => j.body.type === 'route.reconcile')
    if (!job) throw new Error('createRaw queued no reconcile')
    // The push fails (Caddy answers for the agent that is gone) and would be retried later; nobody retries it.
    expect((await runJob(job.body, 1)).retryDelay).not.toBeNull()
    const echoed = await timedStep('catch-up: the restarted agent asks the panel', () =>
      withAgentRelay(async () => {
        await control('POST', '/agent/restart')
        return eventually(
          () => tcpRoundTrip(missedPort, 'the missed forward'),
          (answer) => answer.echoed === 'the missed forward',
        )
      }),
    )
    expect(echoed).toEqual({ echoed: 'the missed forward' })
    expect(await tcpRoundTrip(forwardPort, 'the older forward')).toEqual({ echoed: 'the older forward' })
  })
})
