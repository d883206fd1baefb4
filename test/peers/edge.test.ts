import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { MAX_RECONCILE_ATTEMPTS } from '../../src/routes/reconcile-job'
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
  httpsThroughCaddy,
  peers,
  tcpRoundTrip,
  timedStep,
  withAgentRelay,
} from './peers'

// Steps 2–4 of the end-to-end suite: the panel drives the reference agent, Caddy and pebble for real.

interface RouteRow {
  id: string
  kind: string
  hostname: string | null
  status: string
  listenPort: number | null
  edgeConfig: { error: string | null; appliedVersion: number | null }
}

describe('the edge, end to end', () => {
  let admin: Caller
  let node: EdgeNode
  let zone: { id: string; name: string }
  let sent: SentJob[] = []

  beforeAll(async () => {
    admin = await adminSession()
    await enrollPeerBoxes(admin, 'edge')
    zone = await ok('dnsServers.zones.create', { name: zoneName('edge') }, admin)
    node = await edgeNode(admin, 'edge')
  })

  beforeEach(() => {
    sent = captureJobs()
  })

  const routesOfSite = () => ok<RouteRow[]>('routes.listForSite', { siteId: node.siteId }, admin)

  it('should issue a real certificate for an active custom hostname and report it to its status', async () => {
    const hostname = `shop.${zone.name}`
    await ok('customHostnames.settings.set', { siteId: node.siteId, allowedZones: [zone.name] }, admin)
    const registered = await ok<{ state: string; tier: string }>(
      'customHostnames.register',
      { siteId: node.siteId, hostname },
      admin,
    )
    expect(registered).toMatchObject({ tier: 'hosted', state: 'pending' })
    await timedStep('custom hostname: records and route', () => drainJobs(sent, ''))
    const status = () =>
      ok<{ state: string; cert: { issued: boolean; notAfter?: string } }>(
        'customHostnames.status',
        { siteId: node.siteId, hostname },
        admin,
      )
    expect((await status()).state).toBe('active')
    expect(await routesOfSite()).toContainEqual(
      expect.objectContaining({ kind: 'http', hostname, status: 'active' }),
    )
    const answer = await timedStep('custom hostname: first HTTPS request (HTTP-01 via pebble)', () =>
      httpsThroughCaddy(hostname),
    )
    expect(answer).toMatchObject({ ok: true, status: 200, body: `site ${hostname}` })
    if (!answer.ok) return
    expect(answer.issuer).toContain('Pebble')
    // Nobody primes: the agent saw Caddy ask for the hostname and reports the certificate once it is served.
    const cert = await timedStep('custom hostname: the agent reports the issued certificate', () =>
      withAgentRelay(async () => {
        for (let i = 0; i < 40; i++) {
          const current = (await status()).cert
          if (current.issued) return current
          await new Promise((resolve) => setTimeout(resolve, 250))
        }
        return (await status()).cert
      }),
    )
    expect(cert).toMatchObject({ issued: true, notAfter: answer.notAfter })
  })

  it('should forward bytes through the agent for a raw TCP route, and stop after remove', async () => {
    const listenPort = await control<{ port: number }>('GET', '/free-port').then((free) => free.port)
    const route = await ok<RouteRow>(
      'routes.createRaw',
      { instanceId: node.instanceId, listenPort, targetPort: peers.echoPort },
      admin,
    )
    await timedStep('raw route: reconcile', () => drainJobs(sent, 'route.'))
    const routes = await ok<RouteRow[]>('routes.listForInstance', { instanceId: node.instanceId }, admin)
    expect(routes.find((r) => r.id === route.id)).toMatchObject({ status: 'active' })
    expect(await tcpRoundTrip(listenPort, 'ping through the edge')).toEqual({
      echoed: 'ping through the edge',
    })
    await ok('routes.remove', { id: route.id }, admin)
    await timedStep('raw route: remove', () => drainJobs(sent, 'route.'))
    const after = await ok<RouteRow[]>('routes.listForInstance', { instanceId: node.instanceId }, admin)
    expect(after.map((r) => r.id)).not.toContain(route.id)
    const closed = await tcpRoundTrip(listenPort, 'anyone there?')
    expect(closed.error).toContain('ECONNREFUSED')
  })

  it('should serve every other forward when one port is taken, and that one once it is free', async () => {
    const free = async () => (await control<{ port: number }>('GET', '/free-port')).port
    const held = (await control<{ port: number }>('POST', '/port/hold')).port
    const open = async (listenPort: number) =>
      ok<RouteRow>(
        'routes.createRaw',
        { instanceId: node.instanceId, listenPort, targetPort: peers.echoPort },
        admin,
      )
    const statusOf = async (ids: string[]) => {
      const rows = await ok<RouteRow[]>('routes.listForInstance', { instanceId: node.instanceId }, admin)
      return ids.map((id) => rows.find((row) => row.id === id))
    }
    const taken = await open(held)
    const served = await open(await free())
    try {
      await timedStep('per-entry: reconcile with one port taken', () => drainJobs(sent, 'route.'))
      const [refused, active] = await statusOf([taken.id, served.id])
      expect(refused).toMatchObject({ status: 'error' })
      expect(refused?.edgeConfig.error).toMatch(new RegExp(`^cannot listen on tcp/${held}: .*EADDRINUSE`))
      expect(active).toMatchObject({ status: 'active' })
      expect(await tcpRoundTrip(served.listenPort ?? 0, 'beside a taken port')).toEqual({
        echoed: 'beside a taken port',
      })
      expect(await tcpRoundTrip(held, 'whose?')).toEqual({ echoed: 'held' })
      // A later change still applies.
      const later = await open(await free())
      await drainJobs(sent, 'route.')
      expect((await statusOf([later.id]))[0]).toMatchObject({ status: 'active' })
      expect(await tcpRoundTrip(later.listenPort ?? 0, 'a later route')).toEqual({ echoed: 'a later route' })
      // Freed, the port is the agent's at the next push.
      await control('POST', `/port/release?port=${held}`)
      await ok('routes.reconcile', { id: taken.id }, admin)
      await drainJobs(sent, 'route.')
      expect((await statusOf([taken.id]))[0]).toMatchObject({ status: 'active', edgeConfig: { error: null } })
      expect(await tcpRoundTrip(held, 'now forwarded')).toEqual({ echoed: 'now forwarded' })
      await ok('routes.remove', { id: later.id }, admin)
    } finally {
      await control('POST', `/port/release?port=${held}`)
      for (const id of [taken.id, served.id]) await ok('routes.remove', { id }, admin)
      await drainJobs(sent, 'route.')
    }
  })

  it('should turn a route error, naming the agent’s actual error, when Caddy is down', async () => {
    const listenPort = await control<{ port: number }>('GET', '/free-port').then((free) => free.port)
    const hostname = `down.${zone.name}`
    await control('POST', '/caddy/stop')
    try {
      // A raw forward needs no Caddy (agent 0.4.0 touches Caddy only when vhosts change): it applies.
      const raw = await ok<RouteRow>(
        'routes.createRaw',
        { instanceId: node.instanceId, listenPort, targetPort: peers.echoPort },
        admin,
      )
      await drainJobs(sent, 'route.')
      const forwards = await ok<RouteRow[]>('routes.listForInstance', { instanceId: node.instanceId }, admin)
      expect(forwards.find((r) => r.id === raw.id)?.status).toBe('active')
      // A hostname needs Caddy: its records are written, its reconcile keeps failing.
      await ok('customHostnames.register', { siteId: node.siteId, hostname }, admin)
      await drainJobs(sent, '', 3)
      const job = sent.find((j) => j.body.type === 'route.reconcile')
      if (!job) throw new Error('the registration queued no reconcile')
      // The last of the retries: the agent still cannot reach Caddy, so the route turns error.
      await timedStep('broken step: reconcile with Caddy down', () =>
        runJob(job.body, MAX_RECONCILE_ATTEMPTS),
      )
      const failed = (await routesOfSite()).find((r) => r.hostname === hostname)
      expect(failed?.status).toBe('error')
      expect(failed?.edgeConfig.error).toContain('not applied after 5 attempts')
      expect(failed?.edgeConfig.error).toContain(
        "the node agent answered 502: Caddy's admin API did not answer",
      )
    } finally {
      await control('POST', '/caddy/start')
    }
  })
})
