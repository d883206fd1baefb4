import { runInDurableObject } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import type { Env } from '../../src/env'
import { type LedgerBatch, LedgerStore } from '../../src/probes/heartbeat/ledger-store'

// A ledger shard's storage across wakes: the object numbers its own ping rows, so a store made again over the same
// storage (an evicted or restarted object) must carry on from what is left, whatever was already written to D1.
const workerEnv = env as unknown as Env
const probeId = '0f8fad5b-d9cb-469f-a165-70867728950e'
const entry = { hash: 'a'.repeat(64), active: true, forward: false }
const HOUR = 3_600_000
const at = (minute: number) => Date.UTC(2027, 0, 4, 10, minute)

const upCount = (batch: LedgerBatch | null) =>
  batch?.probes.get(probeId)?.rollups.find((rollup) => rollup.granularity === 'hourly')?.up ?? 0

describe('the heartbeat ledger store across wakes', () => {
  it('should keep numbering, counting and answering the last ping after the object starts again', async () => {
    const stub = workerEnv.HEARTBEAT_LEDGER.getByName(`store-test-${crypto.randomUUID()}`)
    await runInDurableObject(stub, (_, state) => {
      const rows = () => state.storage.sql.exec<{ n: number }>('SELECT count(*) AS n FROM pings').one().n
      const first = new LedgerStore(state.storage.sql)
      first.register(probeId, entry)
      first.record(probeId, { at: at(1), exitStatus: null, body: '' })
      first.record(probeId, { at: at(2), exitStatus: 0, body: 'done' })
      const written = first.take()
      expect(upCount(written)).toBe(2)
      if (written) first.written(written)
      first.record(probeId, { at: at(3), exitStatus: null, body: 'third' })
      expect(rows()).toBe(1)

      // Restarted with one ping not yet in D1: it is counted again, and the next one takes the number after it.
      const second = new LedgerStore(state.storage.sql)
      expect(second.lastPing(probeId)).toMatchObject({ at: new Date(at(3)).toISOString(), body: 'third' })
      second.record(probeId, { at: at(4), exitStatus: null, body: '' })
      const pending = second.take()
      expect(upCount(pending)).toBe(2)
      if (pending) second.written(pending)
      expect(rows()).toBe(0)

      // Restarted with everything written: numbering starts again, the last ping is the one kept in the entry.
      const third = new LedgerStore(state.storage.sql)
      expect(third.hasPending()).toBe(false)
      expect(third.lastPing(probeId)?.at).toBe(new Date(at(4)).toISOString())
      third.record(probeId, { at: at(5) + HOUR, exitStatus: 3, body: '' })
      expect(third.lastPing(probeId)).toMatchObject({
        at: new Date(at(5) + HOUR).toISOString(),
        exitStatus: 3,
      })
      const last = third.take()
      expect(last?.probes.get(probeId)?.rollups.filter((r) => r.granularity === 'hourly')).toHaveLength(1)
      if (last) third.written(last)
      expect(rows()).toBe(0)
    })
  })
})
