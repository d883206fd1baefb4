import { beforeEach } from 'vitest'
import { type SiteFixture, siteWithToken, zoneName } from '../custom-hostnames/fixture'
import { enrollBoxes } from '../dns-servers/enroll'
import { captureJobs, type SentJob } from '../dns-servers/run-job'
import { FakeDoh } from '../fakes/doh'
import { FakeNodeAgent } from '../fakes/node-agent'
import { FakePowerDns } from '../fakes/powerdns'
import { type Caller, ok } from '../helpers/http'
import { drainJobs } from '../helpers/jobs'
import { adminSession } from '../helpers/principals'

// For test/domains-<x>.test.ts, x one of onboarding, attach, manual, failures, renew-on-demand, detach,
// set-proxied and permissions-sweep. Importing this module registers their beforeEach: fresh fake boxes
// (enrolled once per file), a fake resolver and node agent, the captured JOBS queue, a new site and a zone.

export const boxes = [
  new FakePowerDns('https://pdns-a.domains.test', 'domains-key-a'),
  new FakePowerDns('https://pdns-b.domains.test', 'domains-key-b'),
]
const AGENT_SECRET = 'agent-secret-0123456789'
export let admin: Caller
export let sent: SentJob[]
export let site: SiteFixture
export let agent: FakeNodeAgent
export let doh: FakeDoh
export let zone: string
export let zoneId: string
export let target: string
let enrolled = false

beforeEach(async () => {
  for (const box of boxes) box.reset().install()
  doh = new FakeDoh().install()
  sent = captureJobs()
  admin = await adminSession()
  if (!enrolled) {
    await enrollBoxes(admin, 'domains', boxes)
    enrolled = true
  }
  site = await siteWithToken(admin)
  const node = await ok<{ agentUrl: string; dnsTarget: string }>('nodes.get', { id: site.nodeId }, admin)
  target = node.dnsTarget
  agent = new FakeNodeAgent(node.agentUrl, AGENT_SECRET).install()
  zone = zoneName('domains')
  zoneId = (await ok<{ id: string }>('dnsServers.zones.create', { name: zone }, admin)).id
})

export const attach = (input: Record<string, unknown>, caller: Caller = admin) =>
  ok<{ domainId: string; hostname: string }>('domains.attach', { siteId: site.siteId, ...input }, caller)
export const everything = () => drainJobs(sent, '', 40)
