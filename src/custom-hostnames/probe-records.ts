import type { Db } from '../db/client'
import { recordsInTheWay } from '../dns-write/in-the-way'
import { openNameWriter } from '../dns-write/open-name-writer'
import type { Env } from '../env'
import type { Plan } from './planner'

/** How long probe waits for the zone's records before answering from the plan alone. */
export const PROBE_READ_MS = 3_000

/**
 * The plan as register's write would meet it: for an auto verdict on a hostname this site does not hold yet, the
 * records at the name are read, and one the panel did not write that stands in the way makes the verdict
 * blocked with reason foreign-records (register would fail the row naming it). A zone that does not answer in
 * time leaves the plan as it is: probe is advisory.
 */
export async function withRecordsAtName(db: Db, env: Env, hostname: string, plan: Plan): Promise<Plan> {
  const writer = plan.writer
  if (plan.verdict !== 'auto' || plan.registered || !writer) return plan
  const read = (async () => {
    const opened = await openNameWriter(
      db,
      env,
      writer.kind,
      writer.kind === 'hosted' ? writer.zoneId : writer.accountId,
      plan.zoneName,
    )
    return recordsInTheWay(plan.records, await opened.read(hostname))
  })().catch(() => [])
  const deadline = new Promise<[]>((resolve) => setTimeout(() => resolve([]), PROBE_READ_MS))
  const inTheWay = await Promise.race([read, deadline])
  return inTheWay.length > 0 ? { ...plan, verdict: 'blocked', reason: 'foreign-records', writer: null } : plan
}
