import { and, asc, eq, gt, ne } from 'drizzle-orm'
import { loadPlanFacts } from '../custom-hostnames/facts'
import { describeRecords } from '../custom-hostnames/outcome'
import { planCustomHostname } from '../custom-hostnames/planner'
import { samePlan } from '../custom-hostnames/replan'
import { type Db, db } from '../db/client'
import { domains } from '../db/schema/domains'
import { instances, sites } from '../db/schema/fleet'
import type { Env } from '../env'
import type { JobOutcome } from '../jobs/outcome'
import { enqueueDomainStep, entry } from './chain'
import { type DomainRecord, sameGeneration } from './rows'

export interface DomainReplanMessage {
  type: 'domain.replan'
  nodeId: string
  /** The last domain id a previous page re-planned (domains go in id order). */
  after?: string
}

const PAGE = 100
// A row another attach, renew or detach takes over between the read and the write is read again, this often.
const TRIES = 3

/** Queues the re-plan of every domain on a node whose DNS target or addresses changed. */
export async function enqueueDomainReplan(env: Env, nodeId: string): Promise<void> {
  const message: DomainReplanMessage = { type: 'domain.replan', nodeId }
  await env.JOBS.sendBatch([{ body: message }])
}

// The records the domain needs now, planned as attach plans them; null when the node offers nothing to point at.
async function currentPlan(database: Db, row: DomainRecord) {
  const plan = planCustomHostname(await loadPlanFacts(database, row.siteId, row.hostname))
  return plan.missingTarget ? null : plan.records
}

/**
 * Takes the new records and runs the flow again from the DNS write at a new generation, as attach of a failed
 * domain does: selfhosted and provider domains replace the records the panel wrote, manual ones wait for the
 * customer's, and the route, certificate and smoke test are checked again. The domain is not green meanwhile
 * (dnsState pending); its route keeps serving. True when the row was re-planned (or needs nothing).
 */
async function replanDomain(env: Env, database: Db, row: DomainRecord): Promise<boolean> {
  const records = await currentPlan(database, row)
  if (!records || samePlan(records, row.records)) return true
  const now = new Date()
  const generation = row.generation + 1
  const updated = await database
    .update(domains)
    .set({
      records,
      generation,
      step: 'dns-write',
      attempts: 0,
      stepStartedAt: now,
      dnsState: 'pending',
      certState: !row.routeId ? 'none' : row.certState === 'renewing' ? 'pending' : row.certState,
      failureRemedy: null,
      verification: [
        ...row.verification,
        entry(
          'replan',
          'passed',
          `the node's DNS target changed: ${describeRecords(records)} replace ${describeRecords(row.records)}`,
        ),
      ],
      updatedAt: now,
    })
    .where(sameGeneration(row))
    .returning({ id: domains.id })
  if (updated.length === 0) return false
  await enqueueDomainStep(env, { id: row.id, generation })
  return true
}

/** Re-plans the node's domains a page at a time (a domain being detached keeps its records: its job deletes them). */
export async function domainReplanJob(message: DomainReplanMessage, env: Env): Promise<JobOutcome> {
  const database = db(env.DB)
  const page = await database
    .select({ id: domains.id })
    .from(domains)
    .innerJoin(sites, eq(sites.id, domains.siteId))
    .innerJoin(instances, eq(instances.id, sites.instanceId))
    .where(
      and(eq(instances.nodeId, message.nodeId), ...(message.after ? [gt(domains.id, message.after)] : [])),
    )
    .orderBy(asc(domains.id))
    .limit(PAGE)
  for (const { id } of page) {
    for (let tries = 0; tries < TRIES; tries++) {
      const [row] = await database
        .select()
        .from(domains)
        .where(and(eq(domains.id, id), ne(domains.step, 'detach')))
      if (!row || (await replanDomain(env, database, row))) break
    }
  }
  const last = page.at(-1)
  if (page.length === PAGE && last) {
    const next: DomainReplanMessage = { ...message, after: last.id }
    await env.JOBS.sendBatch([{ body: next }])
  }
  return { kind: 'done' }
}
