import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { JobMessage } from '../../src/jobs/messages'
import { zoneName } from '../custom-hostnames/fixture'
import { captureJobs, type SentJob } from '../dns-servers/run-job'
import { runCron } from '../helpers/changelog'
import { type Caller, ok, send } from '../helpers/http'
import { drainJobs, runJob } from '../helpers/jobs'
import { adminSession, operatorSession } from '../helpers/principals'
import type { OpenStream, WatchEvent } from '../probes/watch-stream'
import { openWatch } from '../probes/watch-stream'
import { eventsUntil, serveWithoutSni } from './monitoring-targets'
import {
  control,
  type EdgeNode,
  edgeNode,
  enrollPeerBoxes,
  httpsThroughCaddy,
  peers,
  timedStep,
  withAgentRelay,
} from './peers'

// Issue 10's "done": an operator watches an http, a tcp, a dns, a cert and a heartbeat probe flip live. The
// probes check real counterparts: the site and the echo service behind raw routes of the reference agent,
// PowerDNS through dnsdist, a pebble certificate served by Caddy, and pings through the Worker's fetch. The
// minute cron and the queue handler run for real on the messages they send.

interface ProbeRow {
  id: string
  state: string
  config: Record<string, unknown>
  consecutiveFailures: number
  lastResult: { outcome: string; detail: string } | null
  heartbeatUrl: string | null
}

const MINUTE = 60_000
const DAY = 86_400_000
// The watch's intervalMs, and how long a stream must stay silent to show nothing was sent.
const INTERVAL = 250
const QUIET = INTERVAL * 3
const FLIP = 5000

describe('monitoring, end to end', () => {
  let admin: Caller
  let operator: Caller
  let node: EdgeNode
  let zone: { id: string; name: string }
  let sent: SentJob[] = []
  let stream: OpenStream | null = null
  const created: string[] = []

  beforeAll(async () => {
    admin = await adminSession()
    operator = await operatorSession(admin)
    await enrollPeerBoxes(admin, 'monitor')
    zone = await ok('dnsServers.zones.create', { name: zoneName('monitor') }, admin)
    node = await edgeNode(admin, 'monitor')
  })

  afterAll(async () => {
    await stream?.close()
    // Archiving clears each monitor's alarms, so nothing of this file runs on in the background.
    for (const id of created) await ok('probes.archive', { id }, admin)
  })

  const rawRoute = async (targetPort: number) => {
    const { port } = await control<{ port: number }>('GET', '/free-port')
    const route = await ok<{ id: string }>(
      'routes.createRaw',
      { instanceId: node.instanceId, listenPort: port, targetPort },
      admin,
    )
    return { id: route.id, port }
  }

  const createProbe = async (type: string, target: string, config: Record<string, unknown> = {}) => {
    const probe = await ok<ProbeRow>(
      'probes.create',
      { name: `${type} probe`, type, targetKind: 'external', target, config },
      admin,
    )
    created.push(probe.id)
    return probe
  }

  const get = (id: string) => ok<ProbeRow>('probes.get', { id }, admin)

  /** Runs the minute cron at `at` and its shards, then each probe.checks pack they queued through the queue handler; returns their probes. */
  async function scanAndCheck(at: number): Promise<string[]> {
    sent.length = 0
    await runCron('* * * * *', at)
    // The scan fans out into probe.scan shards; each queues its probes' checks.
    for (const shard of sent.map((job) => job.body).filter((body) => body.type === 'probe.scan'))
      expect((await runJob(shard)).acked).toBe(true)
    const packs = sent
      .map((job) => job.body)
      .filter((body): body is Extract<JobMessage, { type: 'probe.checks' }> => body.type === 'probe.checks')
    for (const pack of packs) expect((await runJob(pack)).acked).toBe(true)
    return packs.flatMap((pack) => pack.checks.map((check) => check.probeId)).sort()
  }

  /** The events until the probes show `expected`; a failure names each probe's live state and last result. */
  async function flips(expected: Record<string, string>): Promise<WatchEvent[]> {
    if (!stream) throw new Error('no watch stream is open')
    try {
      return await eventsUntil(stream, expected, FLIP)
    } catch (error) {
      const live = await Promise.all(
        Object.keys(expected).map(async (id) => {
          const probe = await get(id)
          return `${probe.id} ${probe.state}: ${JSON.stringify(probe.lastResult)}`
        }),
      )
      throw new Error(`${String(error)}\n${live.join('\n')}`)
    }
  }

  const idsIn = (events: WatchEvent[]) => [...new Set(events.map((event) => event.row.id))]

  it('should let an operator watch an http, a tcp, a dns, a cert and a heartbeat probe flip live', async () => {
    sent = captureJobs()
    const hostname = `secure.${zone.name}`
    const www = `www.${zone.name}`

    // The counterparts: the site and the echo service behind raw routes, a name on the boxes, a certificate.
    const [site, echo] = await timedStep(
      'monitoring: raw routes to the site and the echo service',
      async () => {
        const routes = [await rawRoute(peers.sitePort), await rawRoute(peers.echoPort)]
        await drainJobs(sent, 'route.')
        return routes
      },
    )
    if (!site || !echo) throw new Error('the raw routes were not created')
    await ok(
      'dnsServers.zones.upsertRecord',
      { id: zone.id, name: www, type: 'A', ttl: 60, values: ['127.0.0.1'] },
      admin,
    )
    await ok('customHostnames.settings.set', { siteId: node.siteId, allowedZones: [zone.name] }, admin)
    await ok('customHostnames.register', { siteId: node.siteId, hostname }, admin)
    await timedStep('monitoring: custom hostname records and route', () => drainJobs(sent, ''))
    // Before the first handshake: changing Caddy's config drops the certificates it holds in memory.
    await serveWithoutSni(hostname)
    const served = await timedStep('monitoring: certificate issued by pebble, served by Caddy', () =>
      withAgentRelay(async () => {
        const answer = await httpsThroughCaddy(hostname)
        // The agent's certificate report is relayed to the panel before the relay stops.
        for (let i = 0; i < 40; i++) {
          const status = await ok<{ cert: { issued: boolean } }>(
            'customHostnames.status',
            { siteId: node.siteId, hostname },
            admin,
          )
          if (status.cert.issued) break
          await new Promise((resolve) => setTimeout(resolve, 250))
        }
        return answer
      }),
    )
    if (!served.ok) throw new Error(`Caddy served no certificate for ${hostname}: ${served.error}`)
    expect(served.issuer).toContain('Pebble')

    // One probe of each type, as admin through probes.create.
    const http = await createProbe('http', `http://127.0.0.1:${site.port}/`, {
      failureThreshold: 2,
      keyword: `site 127.0.0.1:${site.port}`,
    })
    const tcp = await createProbe('tcp', `127.0.0.1:${echo.port}`, { failureThreshold: 2 })
    const dns = await createProbe('dns', www, {
      recordType: 'A',
      expectedValues: ['127.0.0.1'],
      failureThreshold: 1,
    })
    // certWarnDays 1: a certificate pebble just issued is up, whatever lifetime pebble gives it.
    const cert = await createProbe('cert', `127.0.0.1:${peers.httpsPort}`, { certWarnDays: 1 })
    const heartbeat = await createProbe('heartbeat', 'nightly backup', { intervalSeconds: 3600 })
    const all = [http, tcp, dns, cert, heartbeat]
    const ids = all.map((probe) => probe.id)
    const scanned = [http.id, tcp.id, dns.id, cert.id].sort()
    const pingPath = new URL(heartbeat.heartbeatUrl ?? '').pathname

    // The operator's stream starts with the five probes paused, and stays silent while nothing changes.
    stream = await openWatch(operator, { intervalMs: INTERVAL })
    expect(stream.status, stream.text()).toBe(200)
    const snapshot = await stream.take(ids.length, FLIP)
    expect(Object.fromEntries(snapshot.map(({ row }) => [row.id, row.state]))).toEqual(
      Object.fromEntries(ids.map((id) => [id, 'paused'])),
    )
    expect(await stream.next(QUIET)).toBeNull()

    // Up: the cron queues the four checked probes, the queue handler checks them, the heartbeat is pinged.
    const start = Date.now()
    const daysLeft = () => Math.floor((Date.parse(served.notAfter) - Date.now()) / DAY)
    const daysBefore = daysLeft()
    const up = await timedStep('monitoring: all five up', async () => {
      expect(await scanAndCheck(start)).toEqual(scanned)
      const ping = await send(pingPath)
      expect(ping.status, ping.text).toBe(200)
      return flips(Object.fromEntries(ids.map((id) => [id, 'up'])))
    })
    const daysAfter = daysLeft()
    // One event per probe: each went paused → up once.
    expect(up).toHaveLength(ids.length)
    for (const event of up) expect(event.row).toMatchObject({ state: 'up', enabled: true })
    expect(idsIn(up).sort()).toEqual([...ids].sort())
    expect(await stream.next(QUIET)).toBeNull()
    expect((await get(http.id)).lastResult).toMatchObject({ outcome: 'up', detail: 'HTTP 200' })
    expect((await get(tcp.id)).lastResult).toMatchObject({ outcome: 'up', detail: 'connected' })
    expect((await get(dns.id)).lastResult).toMatchObject({ outcome: 'up', detail: 'A 127.0.0.1' })
    expect((await get(heartbeat.id)).lastResult).toMatchObject({ outcome: 'up', detail: 'ping received' })
    // The expiry the handshake reader found is the one Node saw on the certificate Caddy served.
    const until = served.notAfter.slice(0, 10)
    expect(
      [daysBefore, daysAfter].map((days) => `certificate valid until ${until} (${days} days left)`),
    ).toContain((await get(cert.id)).lastResult?.detail)

    // Down: the routes go, the name goes, the job reports failure. dns and the heartbeat fail at the first.
    await timedStep('monitoring: break the routes and the name', async () => {
      for (const route of [site, echo]) await ok('routes.remove', { id: route.id }, admin)
      await drainJobs(sent, 'route.')
      await ok('dnsServers.zones.deleteRecord', { id: zone.id, name: www, type: 'A' }, admin)
    })
    const firstDown = await timedStep('monitoring: first failed checks', async () => {
      expect(await scanAndCheck(start + MINUTE)).toEqual([http.id, tcp.id, dns.id].sort())
      expect((await send(`${pingPath}/fail`)).status).toBe(200)
      return flips({ [dns.id]: 'down', [heartbeat.id]: 'down' })
    })
    // http and tcp failed once, under their failureThreshold of 2: no event names them.
    expect(idsIn(firstDown).sort()).toEqual([dns.id, heartbeat.id].sort())
    expect(await stream.next(QUIET)).toBeNull()
    expect(await get(http.id)).toMatchObject({
      state: 'up',
      consecutiveFailures: 1,
      lastResult: { outcome: 'down' },
    })
    expect(await get(tcp.id)).toMatchObject({
      state: 'up',
      consecutiveFailures: 1,
      lastResult: { outcome: 'down' },
    })
    expect((await get(dns.id)).lastResult).toMatchObject({ detail: `NXDOMAIN: ${www} does not exist` })
    expect((await get(heartbeat.id)).lastResult).toMatchObject({ detail: 'failure signalled' })

    const secondDown = await timedStep('monitoring: second failed checks', async () => {
      expect(await scanAndCheck(start + 2 * MINUTE)).toEqual([http.id, tcp.id, dns.id].sort())
      return flips({ [http.id]: 'down', [tcp.id]: 'down' })
    })
    expect(idsIn(secondDown).sort()).toEqual([http.id, tcp.id].sort())
    expect(await stream.next(QUIET)).toBeNull()
    expect((await get(http.id)).lastResult?.detail).toMatch(/^request failed: /)
    expect((await get(tcp.id)).lastResult?.detail).toMatch(/^could not connect: /)
    expect((await get(cert.id)).state).toBe('up')
  })

  // Fails until ProbeConfigSchema (src/probes/config.ts) stops matching a tcp config as an http one: the read
  // adds http's method, expectedStatus and followRedirects to every tcp probe.
})
