import { and, eq } from 'drizzle-orm'
import type { Db } from '../db/client'
import { customHostnameRecords, customHostnames } from '../db/schema/custom-hostnames'
import { recordsInTheWay } from '../dns-write/in-the-way'
import type { PresentRecord } from '../dns-write/name-writer'
import { openNameWriter } from '../dns-write/open-name-writer'
import type { Env } from '../env'
import type { Plan } from './planner'
import { providerCallFree } from './provider-wait'
import { type LedgerEntry, matchLedger } from './record-ledger'

/** How long probe and register wait for the zone's records before answering from the plan alone. */
export const PROBE_READ_MS = 3_000

/** A record at the name, not written by the panel, that stands in the way of the planned ones. */
export interface RecordInTheWay {
  type: string
  name: string
  value: string
}

// What the panel wrote (or is writing) at the name through this writer, for whichever row of this site holds it.
function ownEntries(db: Db, hostname: string, writer: NonNullable<Plan['writer']>) {
  return db
    .select({ entry: customHostnameRecords })
    .from(customHostnameRecords)
    .innerJoin(customHostnames, eq(customHostnames.id, customHostnameRecords.ownerId))
    .where(
      and(
        eq(customHostnames.hostname, hostname),
        eq(customHostnameRecords.via, writer.kind),
        eq(customHostnameRecords.writerId, writer.kind === 'hosted' ? writer.zoneId : writer.accountId),
      ),
    )
}

/** What the panel wrote at a name, as its ledger or a domain's `written` keeps it. */
export type OwnRecord = Pick<LedgerEntry, 'recordId' | 'type' | 'value'>

/** Every record at the name, and those of them the panel did not write. */
export interface NameInZone {
  present: PresentRecord[]
  others: PresentRecord[]
}

/**
 * Reads the name as a write would meet it, through the zone's writer, and tells the panel's own records (`own`)
 * from the others. Null when a provider account has no call free in its pace (a bulk registration): the writes
 * waiting for their turns need the provider's budget more. A writer that cannot be opened or read throws.
 */
export async function readNameInZone(
  db: Db,
  env: Env,
  hostname: string,
  writer: NonNullable<Plan['writer']>,
  zoneName: string,
  own: () => Promise<readonly OwnRecord[]>,
): Promise<NameInZone | null> {
  const [opened, owned] = await Promise.all([
    openNameWriter(
      db,
      env,
      writer.kind,
      writer.kind === 'hosted' ? writer.zoneId : writer.accountId,
      zoneName,
    ),
    own(),
  ])
  if (opened.budget && !(await providerCallFree(env, opened.budget))) return null
  const present = await opened.read(hostname)
  const ours = new Set(matchLedger(owned, present).values())
  return { present, others: present.filter((record) => !ours.has(record)) }
}

/** What the panel wrote at the name through `writer`, for whichever row of this site holds it. */
export const ownHostnameRecords = (db: Db, hostname: string, writer: NonNullable<Plan['writer']>) => () =>
  ownEntries(db, hostname, writer).then((rows) => rows.map((row) => row.entry))

/**
 * For an auto plan, the records at the name other than the panel's own that stand in the way of it (read as the
 * write job would meet them). A zone that does not answer in time counts as nothing in the way: the write job
 * reads again before it writes, and fails the row naming what it finds. So does a provider account with no call
 * free in its pace.
 */
export async function recordsInTheWayOf(
  db: Db,
  env: Env,
  hostname: string,
  plan: Plan,
): Promise<RecordInTheWay[]> {
  const writer = plan.writer
  if (plan.verdict !== 'auto' || !writer) return []
  const read = readNameInZone(
    db,
    env,
    hostname,
    writer,
    plan.zoneName,
    ownHostnameRecords(db, hostname, writer),
  )
    .then((found) =>
      recordsInTheWay(plan.records, found?.others ?? []).map((r) => ({
        type: r.type,
        name: hostname,
        value: r.value,
      })),
    )
    .catch(() => [])
  const deadline = new Promise<[]>((resolve) => setTimeout(() => resolve([]), PROBE_READ_MS))
  return Promise.race([read, deadline])
}

/** The plan as register carries it out: records in the way make it instructions with reason foreign-records. */
export function withRecordsInTheWay(plan: Plan, inTheWay: readonly RecordInTheWay[]): Plan {
  return inTheWay.length > 0
    ? { ...plan, verdict: 'instructions', reason: 'foreign-records', writer: null }
    : plan
}
