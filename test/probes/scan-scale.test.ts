import { beforeEach, describe, expect, it } from 'vitest'
import type { JobMessage } from '../../src/jobs/messages'
import { captureJobs, runCron } from '../helpers/changelog'
import { runJob } from '../helpers/jobs'
import { workerEnv } from './catalogue-fixture'

// The minute scan past the old fixed cap of 5,000 checks a minute, driven through the Worker's real cron and
// queue handlers. Each test seeds its own probes (one SQL statement) due far in the future of every other test's.

type ChecksMessage = Extract<JobMessage, { type: 'probe.checks' }>
type ScanMessage = Extract<JobMessage, { type: 'probe.scan' }>
const MINUTE = 60_000
let jobs: ReturnType<typeof captureJobs>

beforeEach(async () => {
  jobs = captureJobs()
  await workerEnv.DB.prepare(`delete from probes where id like 'scale-%'`).run()
})

/** Seeds `count` probes at 60 s, due at `dueAt - i` (so the oldest are the highest numbers). */
async function seed(count: number, dueAt: number, start = 0): Promise<void> {
  const seeded = await workerEnv.DB.prepare(
    `with recursive n(i) as (select ?3 + 1 union all select i + 1 from n where i < ?3 + ?2)
     insert into probes (id, name, type, target_kind, target, config, notify_config, state, enabled,
       consecutive_failures, next_check_at, created_at, updated_at)
     select 'scale-' || i, 'scale ' || i, 'http', 'external', 'https://scale.probes-example.com/',
       '{"intervalSeconds":60}', '{}', 'up', 1, 0, ?1 - i, ?1, ?1 from n`,
  )
    .bind(dueAt, count, start)
    .run()
  expect(seeded.meta.changes).toBe(count)
}

// Everything the other files' tests left due by then is scanned away first, so a test sees its own probes only.
async function clearDueBefore(now: number): Promise<void> {
  await workerEnv.DB.prepare(
    `update probes set next_check_at = ?1 + 86400000 where next_check_at <= ?1 and id not like 'scale-%'`,
  )
    .bind(now)
    .run()
}

const packs = () => jobs.sent.filter((m): m is ChecksMessage => m.type === 'probe.checks')
const checks = () => packs().flatMap((pack) => pack.checks)
const slots = () => checks().map((m) => `${m.probeId}@${m.scheduledAt}`)

function takeShards(): ScanMessage[] {
  const shards = jobs.sent.filter((m): m is ScanMessage => m.type === 'probe.scan')
  jobs.sent.splice(0, jobs.sent.length, ...jobs.sent.filter((m) => m.type !== 'probe.scan'))
  return shards
}

// Seeding and scanning thousands of rows takes seconds on a loaded machine.
describe('the minute scan at scale', { timeout: 120_000 }, () => {
  it('should queue a check of each of 12,000 due probes in one minute, in bounded shards on the queue', async () => {
    const now = Date.now() + 1000 * MINUTE
    await clearDueBefore(now)
    await seed(12_000, now)
    await runCron('* * * * *', now)
    const cronBatches = jobs.sendBatch.mock.calls.map(([batch]) => [...batch])
    const shards = takeShards()
    for (const shard of shards) expect((await runJob(shard)).acked).toBe(true)
    expect(takeShards()).toEqual([])
    expect(checks()).toHaveLength(12_000)
    expect(shards.length).toBeGreaterThan(1)
    expect(shards.length).toBeLessThanOrEqual(12)
    expect(new Set(checks().map((m) => m.probeId)).size).toBe(12_000)
    for (const m of checks()) expect(Number(m.probeId.slice('scale-'.length))).toBe(now - m.scheduledAt)
    // The checks travel in packs of 25 (480 queue messages, not 12,000), each shard's in one sendBatch call.
    expect(packs()).toHaveLength(12_000 / 25)
    for (const pack of packs()) expect(pack.checks.length).toBe(25)
    for (const [batch] of jobs.sendBatch.mock.calls) expect([...batch].length).toBeLessThanOrEqual(100)
    expect(jobs.sendBatch.mock.calls.length).toBe(cronBatches.length + shards.length)
    // The shards start a few a second, keeping the check sends under the queue's 5,000 messages a second.
    const delays = cronBatches
      .flat()
      .flatMap((m) => (m.body.type === 'probe.scan' ? [m.delaySeconds ?? 0] : []))
    expect(Math.max(...delays)).toBeGreaterThan(0)
  })

  it('should not queue a slot twice when a shard message is delivered again', async () => {
    const now = Date.now() + 2000 * MINUTE
    await clearDueBefore(now)
    await seed(2500, now)
    await runCron('* * * * *', now)
    const [first, ...rest] = takeShards()
    if (!first) throw new Error('the scan queued no shard')
    expect((await runJob(first)).acked).toBe(true)
    // The Queue delivers it again (at least once delivery), here before the other shards ran and after.
    expect((await runJob(first, 2)).acked).toBe(true)
    for (const shard of rest) expect((await runJob(shard)).acked).toBe(true)
    expect((await runJob(first, 3)).acked).toBe(true)
    expect(checks()).toHaveLength(2500)
    expect(new Set(slots()).size).toBe(2500)
  })

  it('should not queue a slot twice when two scans overlap, and take each next slot once', async () => {
    const now = Date.now() + 3000 * MINUTE
    await clearDueBefore(now + MINUTE)
    await seed(3000, now)
    // The consumers fell behind: the next minute's cron fans out before this one's shards ran.
    await runCron('* * * * *', now)
    await runCron('* * * * *', now + MINUTE)
    const shards = takeShards()
    await Promise.all(shards.map((shard) => runJob(shard)))
    await Promise.all(takeShards().map((shard) => runJob(shard)))
    expect(new Set(slots()).size).toBe(slots().length)
    const byProbe = new Map<string, number[]>()
    for (const m of checks()) byProbe.set(m.probeId, [...(byProbe.get(m.probeId) ?? []), m.scheduledAt])
    expect(byProbe.size).toBe(3000)
    for (const [id, at] of byProbe) {
      const due = now - Number(id.slice('scale-'.length))
      // The slot due at `now`'s scan, and the one after it that the next minute's scan found due.
      expect(at.sort((a, b) => a - b)).toEqual([due, due + MINUTE])
    }
  })
})
