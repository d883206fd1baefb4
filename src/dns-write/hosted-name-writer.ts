import type { Db } from '../db/client'
import { readFromCurrent } from '../dns-servers/nameservers/box-reads'
import { deleteChange, replaceChange, toRecordSets } from '../dns-servers/records/records'
import type { Env } from '../env'
import type { RRsetChange } from '../outside/powerdns'
import { AppError } from '../rpc/errors'
import { applyHostedChanges } from './hosted-zone-change'
import { type NameWriter, type PresentRecord, sameValue, WriterFailure } from './name-writer'
import { openHostedZone } from './open'

const DEFAULT_TTL = 300

/** The NameWriter of a self-hosted zone: reads from a box with current records, writes through the zone's path. */
export async function hostedNameWriter(db: Db, env: Env, zoneId: string): Promise<NameWriter> {
  const opened = await openHostedZone(db, env, zoneId)
  if (typeof opened === 'string') throw new WriterFailure('gone', opened)
  const { zone, boxes } = opened
  const readSets = async () => {
    const current = await readFromCurrent(boxes, (box) => box.client.getZone(zone.name))
    if (!current.ok) throw new WriterFailure('unreachable', `no nameserver box answered: ${current.error}`)
    return toRecordSets(current.value.rrsets)
  }
  return {
    label: `the self-hosted zone ${zone.name} on ${boxes.map((box) => box.hostname).join(', ')}`,
    zoneName: zone.name,
    canDelete: true,
    budget: null,
    async read(name) {
      return (await readSets())
        .filter((set) => set.name.toLowerCase() === name)
        .flatMap((set) =>
          set.values.map((value) => ({ type: set.type, value, recordId: null, ttl: set.ttl })),
        )
    },
    async apply(name, present, change, created) {
      // PowerDNS replaces whole (name, type) sets: each touched type gets what stays plus what is new.
      const types = new Set([...change.remove, ...change.create].map((r) => r.type))
      const gone = (p: PresentRecord) =>
        change.remove.some((r) => r.type === p.type && sameValue(r.value, p.value))
      const changes: RRsetChange[] = [...types].map((type) => {
        const values = [
          ...present.filter((p) => p.type === type && !gone(p)).map((p) => p.value),
          ...change.create.filter((r) => r.type === type).map((r) => r.value),
        ]
        const ttl = change.create.find((r) => r.type === type)?.ttl ?? DEFAULT_TTL
        return values.length ? replaceChange({ name, type, ttl, values }) : deleteChange(name, type)
      })
      if (changes.length === 0) return { waiting: [], writes: [], jobs: [] }
      let settled: Awaited<ReturnType<typeof applyHostedChanges>>
      try {
        settled = await applyHostedChanges(db, env, opened, changes)
      } catch (error) {
        if (!(error instanceof AppError)) throw error
        throw new WriterFailure(error.code === 'validation_failed' ? 'refused' : 'unreachable', error.detail)
      }
      for (const record of change.create) await created(record, null)
      return { waiting: settled.behind, writes: settled.writes, jobs: settled.jobs }
    },
  }
}
