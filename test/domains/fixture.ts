import { env } from 'cloudflare:workers'
import { eq } from 'drizzle-orm'
import { db } from '../../src/db/client'
import { domains } from '../../src/db/schema/domains'
import type { Env } from '../../src/env'
import { type SiteFixture, siteWithToken } from '../custom-hostnames/fixture'
import { captureJobs, type SentJob } from '../dns-servers/run-job'
import { FakeDoh } from '../fakes/doh'
import { FakeNodeAgent } from '../fakes/node-agent'
import { reportCertificates as reportSigned } from '../helpers/agent-callback'
import { type Caller, ok } from '../helpers/http'
import { drainJobs, runJob } from '../helpers/jobs'
import { adminSession } from '../helpers/principals'

export const workerEnv = env as unknown as Env

export interface DomainRow {
  id: string
  siteId: string
  routeId: string | null
  hostname: string
  driver: string
  dnsState: string
  issuer: string
  certState: string
  certExpiresAt: string | null
  proxied: boolean
  failureRemedy: string | null
  verification: { step: string; state: string; detail: string; at: string }[]
  createdAt: string
  updatedAt: string
  nextStep?: { title: string; detail: string } | null
}

/** The domain as domains.get shows it. */
export const getDomain = (id: string, caller: Caller) => ok<DomainRow>('domains.get', { id }, caller)

/** Where the domain's job chain stands (not part of the API). */
export async function stepOf(id: string): Promise<string | undefined> {
  const [row] = await db(workerEnv.DB).select({ step: domains.step }).from(domains).where(eq(domains.id, id))
  return row?.step
}

/** Moves the start of the domain's current step into the past, as if it had been waiting that long. */
export async function ageStep(id: string, ms: number): Promise<void> {
  await db(workerEnv.DB)
    .update(domains)
    .set({ stepStartedAt: new Date(Date.now() - ms), updatedAt: new Date(Date.now() - ms) })
    .where(eq(domains.id, id))
}

/** Runs the queued jobs one at a time, oldest first (retries go to the back), until `until()` holds or none is left. */
export async function runJobsUntil(
  sent: SentJob[],
  until: () => Promise<boolean>,
  limit = 60,
): Promise<void> {
  for (let i = 0; i < limit; i++) {
    if (await until()) return
    const job = sent.shift()
    if (!job) return
    if ((await runJob(job.body)).retryDelay !== null) sent.push(job)
  }
}

/** [step, state] of each verification entry. */
export const stepsOf = (row: DomainRow) => row.verification.map((v) => [v.step, v.state])

/** [id, archived] of the domain's cert-expiry probes, archived ones included, oldest first. */
export async function certProbesOf(
  domainId: string,
  caller: Caller,
): Promise<{ id: string; archivedAt: string | null; config: Record<string, unknown> }[]> {
  const rows = await ok<
    { id: string; type: string; archivedAt: string | null; config: Record<string, unknown> }[]
  >('probes.list', { targetKind: 'domain', targetId: domainId, includeArchived: true }, caller)
  return rows.filter((row) => row.type === 'cert').reverse()
}

/**
 * A node reports the certificates it serves through the signed callback, as its agent does; answers how many
 * observations the panel kept and ignored.
 */
export async function reportCertificates(
  nodeId: string,
  observations: { hostname: string; notAfter: string; serial: string }[],
  secret = 'agent-secret-0123456789',
): Promise<{ accepted: number; ignored: number }> {
  const answer = await reportSigned(
    nodeId,
    {
      observations: observations.map((o) => ({
        issuer: 'CN=Pebble Intermediate CA',
        observedAt: new Date().toISOString(),
        ...o,
      })),
    },
    secret,
  )
  if (answer.status !== 200)
    throw new Error(`the certificate report answered ${answer.status}: ${answer.text}`)
  return answer.body as { accepted: number; ignored: number }
}

export interface DomainWorld {
  admin: Caller
  site: SiteFixture
  agent: FakeNodeAgent
  doh: FakeDoh
  sent: SentJob[]
  /** The site's node's DNS target: what a manual domain's CNAME points at. */
  target: string
}

/** A site on its own node, that node's agent and the DoH resolver faked, and the queue captured (for beforeEach). */
export async function domainWorld(): Promise<DomainWorld> {
  const doh = new FakeDoh().install()
  const sent = captureJobs()
  const admin = await adminSession()
  const site = await siteWithToken(admin)
  const node = await ok<{ agentUrl: string; dnsTarget: string }>('nodes.get', { id: site.nodeId }, admin)
  const agent = new FakeNodeAgent(node.agentUrl, 'agent-secret-0123456789').install()
  return { admin, site, agent, doh, sent, target: node.dnsTarget }
}

/** Attaches a manual domain whose CNAME already resolves to the node and runs the jobs until it is green. */
export async function attachGreen(
  world: DomainWorld,
  hostname: string,
  input: Record<string, unknown> = {},
): Promise<string> {
  world.doh.set(hostname, 'CNAME', [`${world.target}.`])
  const { domainId } = await ok<{ domainId: string }>(
    'domains.attach',
    { siteId: world.site.siteId, hostname, driver: 'manual', ...input },
    world.admin,
  )
  await drainJobs(world.sent, '', 40)
  const row = await getDomain(domainId, world.admin)
  if (row.certState !== 'issued' || row.dnsState !== 'verified')
    throw new Error(`${hostname} did not turn green: ${JSON.stringify(row.verification)}`)
  return domainId
}
