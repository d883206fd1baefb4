import { and, asc, eq, gt, notInArray } from 'drizzle-orm'
import type { BatchItem, Db } from '../db/client'
import { db } from '../db/client'
import { customHostnames } from '../db/schema/custom-hostnames'
import { instances, sites } from '../db/schema/fleet'
import type { Env } from '../env'
import type { JobOutcome } from '../jobs/outcome'
import { loadPlanFacts } from './facts'
import { enqueueCustomHostnameJob } from './jobs'
import { type PlannedRecord, planCustomHostname } from './planner'
import type { CustomHostnameRecord } from './rows'

export interface CustomHostnameReplanMessage {
  type: 'custom-hostname.replan'
  nodeId: string
  /** The last row id a previous page re-planned (rows go in id order). */
  after?: string
}

const PAGE = 100

/** Whether two plans hold the same records. */
export function samePlan(a: readonly PlannedRecord[], b: readonly PlannedRecord[]): boolean {
  return JSON.stringify(a) === JSON.stringify(b)
}

/**
 * What a row becomes under a new plan of records: a hosted or connected row turns pending at a new generation
 * (its write job replaces the records the panel wrote for the old plan), an instructions row hands out the new
 * records and forgets the old lookup. Returns the write and the job to queue after it commits.
 */
export function replanRow(database: Db, row: CustomHostnameRecord, records: PlannedRecord[], now: Date) {
  const writing = row.writerKind !== null && row.state !== 'instructions'
  const generation = row.generation + 1
  const write: BatchItem = database
    .update(customHostnames)
    .set({
      records,
      generation,
      attempts: 0,
      dnsResolves: false,
      dnsCheckedAt: null,
      dnsResolvedAt: null,
      updatedAt: now,
      ...(writing ? { state: 'pending' as const, failureRemedy: null, failureDetail: null } : {}),
    })
    .where(and(eq(customHostnames.id, row.id), eq(customHostnames.generation, row.generation)))
  const job = writing ? { type: 'custom-hostname.write' as const, id: row.id, generation } : null
  return { write, job, state: writing ? ('pending' as const) : row.state }
}

/** Queues the re-plan of every hostname on a node whose DNS target or addresses changed. */
export async function enqueueReplan(env: Env, nodeId: string): Promise<void> {
  await env.JOBS.sendBatch([{ body: { type: 'custom-hostname.replan', nodeId } }])
}

/**
 * Re-plans the node's hostnames a page at a time: each row whose records differ from the current plan takes the
 * new ones (rows being removed keep theirs: their job deletes what was written).
 */
export async function customHostnameReplanJob(
  message: CustomHostnameReplanMessage,
  env: Env,
): Promise<JobOutcome> {
  const database = db(env.DB)
  const rows = await database
    .select({ row: customHostnames })
    .from(customHostnames)
    .innerJoin(sites, eq(sites.id, customHostnames.siteId))
    .innerJoin(instances, eq(instances.id, sites.instanceId))
    .where(
      and(
        eq(instances.nodeId, message.nodeId),
        notInArray(customHostnames.state, ['removing', 'removal-manual']),
        ...(message.after ? [gt(customHostnames.id, message.after)] : []),
      ),
    )
    .orderBy(asc(customHostnames.id))
    .limit(PAGE)
  const now = new Date()
  for (const { row } of rows) {
    // A registered row passed the hostname rule already: only its records are planned again.
    const plan = planCustomHostname(await loadPlanFacts(database, row.siteId, row.hostname))
    if (plan.missingTarget || samePlan(plan.records, row.records)) continue
    const { write, job } = replanRow(database, row, plan.records, now)
    await database.batch([write])
    if (job) await enqueueCustomHostnameJob(env, job)
  }
  const last = rows.at(-1)
  if (rows.length === PAGE && last) await env.JOBS.sendBatch([{ body: { ...message, after: last.row.id } }])
  return { kind: 'done' }
}
