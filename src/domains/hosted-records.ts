import { type DnsStep, describeRecords } from '../custom-hostnames/outcome'
import type { PlannedRecord } from '../custom-hostnames/planner'
import type { Db } from '../db/client'
import type { WrittenRecord } from '../db/schema/custom-hostnames'
import { readFromCurrent } from '../dns-servers/nameservers/box-reads'
import { deleteChange, replaceChange, toRecordSets } from '../dns-servers/records/records'
import { applyHostedChanges } from '../dns-write/hosted-zone-change'
import { holds, recordsInTheWay } from '../dns-write/in-the-way'
import { openHostedZone } from '../dns-write/open'
import type { Env } from '../env'
import type { RRsetChange } from '../outside/powerdns'
import { AppError } from '../rpc/errors'

// A refusal from every up-to-date box is final; a box that did not answer may answer later.
function refused(error: unknown, written: WrittenRecord[]): DnsStep {
  if (error instanceof AppError && error.code === 'validation_failed')
    return { kind: 'failed', error: error.detail, written }
  if (error instanceof AppError) return { kind: 'transient', error: error.detail, written }
  throw error
}

/**
 * Writes a domain's planned records into a self-hosted zone through the zone's write path. Records already at
 * the name that the panel did not write are never replaced: identical ones count as present (and are not ours to
 * delete later), one in the way fails with what is there; records that coexist (the apex's SOA and NS) stay.
 */
export async function writeHostedRecords(
  db: Db,
  env: Env,
  zoneId: string,
  records: PlannedRecord[],
): Promise<DnsStep> {
  const opened = await openHostedZone(db, env, zoneId)
  if (typeof opened === 'string') return { kind: 'failed', error: opened, written: [] }
  const current = await readFromCurrent(opened.boxes, (box) => box.client.getZone(opened.zone.name))
  if (!current.ok)
    return { kind: 'transient', error: `no nameserver box answered: ${current.error}`, written: [] }
  const name = records[0]?.name ?? ''
  const present = toRecordSets(current.value.rrsets)
    .filter((set) => set.name.toLowerCase() === name)
    .flatMap((set) => set.values.map((value) => ({ type: set.type, name, value, recordId: null })))
  const found = recordsInTheWay(records, present)
  if (found.length > 0)
    return {
      kind: 'failed',
      error: `${name} already has records in the zone ${opened.zone.name} that the panel did not create (${describeRecords(found)}): remove them, then attach again`,
      written: [],
    }
  const missing = records.filter((record) => !holds(present, record))
  if (missing.length === 0) return { kind: 'done', written: [], waiting: [], writes: [], jobs: [] }
  const changes = [...new Set(missing.map((r) => r.type))].map((type) => {
    const set = missing.filter((r) => r.type === type)
    return replaceChange({ name, type, ttl: set[0]?.ttl ?? 300, values: set.map((r) => r.value) })
  })
  try {
    const settled = await applyHostedChanges(db, env, opened, changes)
    const written = missing.map((r): WrittenRecord => ({ via: 'hosted', zoneId, ...r }))
    return { kind: 'done', written, waiting: settled.behind, writes: settled.writes, jobs: settled.jobs }
  } catch (error) {
    return refused(error, [])
  }
}

/** Deletes what the panel wrote into a self-hosted zone, leaving any value someone else added at the name. */
export async function deleteHostedRecords(db: Db, env: Env, written: WrittenRecord[]): Promise<DnsStep> {
  const first = written[0]
  if (first?.via !== 'hosted') return { kind: 'done', written: [], waiting: [], writes: [], jobs: [] }
  const opened = await openHostedZone(db, env, first.zoneId)
  if (typeof opened === 'string') return { kind: 'done', written: [], waiting: [], writes: [], jobs: [] }
  const current = await readFromCurrent(opened.boxes, (box) => box.client.getZone(opened.zone.name))
  if (!current.ok)
    return { kind: 'transient', error: `no nameserver box answered: ${current.error}`, written }
  const sets = toRecordSets(current.value.rrsets)
  const changes: RRsetChange[] = []
  for (const type of new Set(written.map((r) => r.type))) {
    const ours = written.filter((r) => r.type === type).map((r) => r.value)
    const set = sets.find((s) => s.name.toLowerCase() === first.name && s.type === type)
    if (!set) continue
    const rest = set.values.filter((value) => !ours.includes(value))
    changes.push(rest.length ? replaceChange({ ...set, values: rest }) : deleteChange(first.name, type))
  }
  if (changes.length === 0) return { kind: 'done', written: [], waiting: [], writes: [], jobs: [] }
  try {
    const settled = await applyHostedChanges(db, env, opened, changes)
    return { kind: 'done', written: [], waiting: settled.behind, writes: settled.writes, jobs: settled.jobs }
  } catch (error) {
    return refused(error, written)
  }
}
