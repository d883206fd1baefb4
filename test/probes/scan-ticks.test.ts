import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { JobMessage } from '../../src/jobs/messages'
import { captureJobs, runCron } from '../helpers/changelog'
import type { Caller } from '../helpers/http'
import { runJob } from '../helpers/jobs'
import { adminSession } from '../helpers/principals'
import { runScanShards } from '../helpers/probe-scan'
import { createProbe, probeRecord, workerEnv } from './catalogue-fixture'

type TickMessage = Extract<JobMessage, { type: 'probe.scan.tick' }>
type ChecksMessage = Extract<JobMessage, { type: 'probe.checks' }>

let admin: Caller
let jobs: ReturnType<typeof captureJobs>

beforeAll(async () => {
  admin = await adminSession()
})

beforeEach(() => {
  jobs = captureJobs()
})

const SECOND = 1000
const checksOf = (probeId: string) =>
  jobs.sent
    .filter((m): m is ChecksMessage => m.type === 'probe.checks')
    .flatMap((pack) => pack.checks)
    .filter((check) => check.probeId === probeId)

async function dueAt(probeId: string, at: number): Promise<void> {
  await workerEnv.DB.prepare('update probes set next_check_at = ?1 where id = ?2').bind(at, probeId).run()
}

describe('the scan ticks within the minute', () => {
  it('should queue five ticks ten seconds apart from the minute cron, each delayed until its time', async () => {
    const minute = Date.now() + 10 * 60 * SECOND
    await runCron('* * * * *', minute)
    const ticks = jobs.sendBatch.mock.calls
      .flatMap(([batch]) => [...batch])
      .filter((m) => (m.body as JobMessage).type === 'probe.scan.tick')
    expect(ticks.map((m) => [(m.body as TickMessage).scanAt, m.delaySeconds])).toEqual([
      [minute + 10 * SECOND, 10],
      [minute + 20 * SECOND, 20],
      [minute + 30 * SECOND, 30],
      [minute + 40 * SECOND, 40],
      [minute + 50 * SECOND, 50],
    ])
  })

  it('should claim at a tick the probes due by its time, at their due time, and leave the later ones to the next tick', async () => {
    const minute = Date.now() + 20 * 60 * SECOND
    const [early, late] = await Promise.all([createProbe(admin), createProbe(admin)])
    if (!early || !late) throw new Error('probes not created')
    await dueAt(early.id, minute + 25 * SECOND)
    await dueAt(late.id, minute + 35 * SECOND)

    await runCron('* * * * *', minute)
    await runScanShards(jobs.sent)
    expect(checksOf(early.id)).toEqual([])

    const tick = (at: number): TickMessage => ({ type: 'probe.scan.tick', scanAt: minute + at * SECOND })
    expect((await runJob(tick(30))).acked).toBe(true)
    await runScanShards(jobs.sent)
    expect(checksOf(early.id)).toEqual([{ probeId: early.id, scheduledAt: minute + 25 * SECOND }])
    expect(checksOf(late.id)).toEqual([])
    expect((await probeRecord(early.id))?.nextCheckAt?.getTime()).toBe(minute + 85 * SECOND)

    expect((await runJob(tick(40))).acked).toBe(true)
    await runScanShards(jobs.sent)
    expect(checksOf(late.id)).toEqual([{ probeId: late.id, scheduledAt: minute + 35 * SECOND }])
  })

  it('should queue each slot once when a tick is delivered again', async () => {
    const minute = Date.now() + 30 * 60 * SECOND
    const probe = await createProbe(admin)
    await dueAt(probe.id, minute + 12 * SECOND)
    const tick: TickMessage = { type: 'probe.scan.tick', scanAt: minute + 20 * SECOND }
    expect((await runJob(tick)).acked).toBe(true)
    expect((await runJob(tick, 2)).acked).toBe(true)
    await runScanShards(jobs.sent)
    expect(checksOf(probe.id)).toEqual([{ probeId: probe.id, scheduledAt: minute + 12 * SECOND }])
  })
})
