import { beforeEach, describe, expect, it } from 'vitest'
import type { RouteReconcileMessage } from '../src/routes/reconcile-job'
import { type SiteFixture, siteWithToken, zoneName } from './custom-hostnames/fixture'
import { enrollBoxes } from './dns-servers/enroll'
import { captureJobs, type SentJob } from './dns-servers/run-job'
import { ageStep, type DomainRow, getDomain, runJobsUntil, stepOf, stepsOf } from './domains/fixture'
import { FakeDoh } from './fakes/doh'
import { FakeNodeAgent } from './fakes/node-agent'
import { FakePowerDns } from './fakes/powerdns'
import { runJobs } from './helpers/changelog'
import { type Caller, ok } from './helpers/http'
import { adminSession } from './helpers/principals'
import { QueueClock } from './helpers/queue-clock'

// A domain attach on a node whose agent is gone or whose Caddy is stopped ends failed, with the agent's actual
// error, within 5 minutes of Queue time: the reconcile gives up after about 3 minutes, and route setup looks
// at the route at least every 30 seconds.

const boxes = [new FakePowerDns('https://pdns-a.node-down.test', 'node-down-key-a')]
const AGENT_SECRET = 'agent-secret-0123456789'
const FIVE_MINUTES = 5 * 60
let admin: Caller
let sent: SentJob[]
let site: SiteFixture
let agent: FakeNodeAgent
let zone: string
let enrolled = false

beforeEach(async () => {
  for (const box of boxes) box.reset().install()
  new FakeDoh().install()
  sent = captureJobs()
  admin = await adminSession()
  if (!enrolled) {
    await enrollBoxes(admin, 'node-down', boxes)
    enrolled = true
  }
  site = await siteWithToken(admin)
  const node = await ok<{ agentUrl: string }>('nodes.get', { id: site.nodeId }, admin)
  agent = new FakeNodeAgent(node.agentUrl, AGENT_SECRET).install()
  zone = zoneName('node-down')
  await ok('dnsServers.zones.create', { name: zone }, admin)
})

async function attach(hostname: string): Promise<string> {
  const { domainId } = await ok<{ domainId: string }>(
    'domains.attach',
    { siteId: site.siteId, hostname, driver: 'selfhosted' },
    admin,
  )
  return domainId
}

/** Runs the attach's jobs to route setup, so the clock starts when the route is added. */
async function toRouteSetup(domainId: string): Promise<void> {
  await runJobsUntil(sent, async () => (await stepOf(domainId)) === 'route-setup')
}

async function failsWithin(domainId: string): Promise<{ seconds: number | null; failed: DomainRow }> {
  const clock = new QueueClock(sent)
  const seconds = await clock.runUntil(async () => (await stepOf(domainId)) === 'failed')
  return { seconds, failed: await getDomain(domainId, admin) }
}

describe('an attach on a node that cannot take its route', () => {
  it("should fail at route setup within 5 minutes with the agent's error when the agent is gone", async () => {
    const domainId = await attach(`gone.${zone}`)
    await toRouteSetup(domainId)
    agent.down = true
    const { seconds, failed } = await failsWithin(domainId)
    expect(seconds).not.toBeNull()
    expect(seconds).toBeLessThan(FIVE_MINUTES)
    expect(failed).toMatchObject({ certState: 'failed', routeId: null })
    expect(stepsOf(failed).at(-1)).toEqual(['route-setup', 'failed'])
    expect(failed.failureRemedy).toMatch(
      /^The route setup step failed: not applied after 5 attempts: the node agent at https:\/\/agent\..* did not answer/,
    )
  })

  it("should fail at route setup within 5 minutes with the agent's error when Caddy is stopped", async () => {
    const domainId = await attach(`stopped.${zone}`)
    await toRouteSetup(domainId)
    agent.proxyReachable = false
    const { seconds, failed } = await failsWithin(domainId)
    expect(seconds).toBeLessThan(FIVE_MINUTES)
    expect(failed.failureRemedy).toContain(
      "not applied after 5 attempts: the node agent answered 502: Caddy's admin API did not answer",
    )
  })

  it("should fail when the route stays unconfirmed past the wait, naming the node's last error", async () => {
    const domainId = await attach(`quiet.${zone}`)
    await toRouteSetup(domainId)
    agent.down = true
    const step = sent.shift()?.body
    if (step?.type !== 'domain.step') throw new Error('route setup was not queued')
    const delayOf = async (body: typeof step | RouteReconcileMessage, attempts: number) =>
      (await runJobs([{ body, attempts }])).retryDelays['msg-0']
    // Route setup adds the route; the first delivery of its reconcile fails, and then that chain is lost.
    expect(await delayOf(step, 1)).toBe(5)
    const reconcile = sent.find((job) => job.body.type === 'route.reconcile')?.body
    if (reconcile?.type !== 'route.reconcile') throw new Error('no reconcile queued')
    expect(await delayOf(reconcile, 1)).toBe(15)
    expect(await delayOf(step, 2)).toBe(30)
    const waiting = (await getDomain(domainId, admin)).verification.at(-1)
    expect(waiting).toMatchObject({ step: 'route-setup', state: 'waiting' })
    expect(waiting?.detail).toMatch(
      /^waiting for the node to confirm the route \(its last error: attempt 1 of 5: the node agent at .* did not answer/,
    )
    await ageStep(domainId, 4 * 60 * 1000)
    expect((await runJobs([{ body: step, attempts: 3 }])).explicitAcks).toEqual(['msg-0'])
    const failed = await getDomain(domainId, admin)
    expect(failed.failureRemedy).toMatch(
      /^The route setup step failed: the node did not confirm the route within 4 minutes \(its last error: attempt 1 of 5: the node agent at .* did not answer/,
    )
  })
})
