import { runDurableObjectAlarm } from 'cloudflare:test'
import { and, eq } from 'drizzle-orm'
import { beforeAll, describe, expect, it } from 'vitest'
import type { ProbeMonitor } from '../../durable-objects/probe-monitor'
import { db } from '../../src/db/client'
import { probeResults } from '../../src/db/schema/probes'
import { parseHeartbeatToken } from '../../src/probes/heartbeat/token'
import type { Ping } from '../../src/probes/monitor/api'
import type { Caller } from '../helpers/http'
import { adminSession } from '../helpers/principals'
import { createProbe, workerEnv } from './catalogue-fixture'

// The clock is each ping's own time and each alarm's set time (an alarm run early stands for the moment it was
// set for), so these runs happen in 2027, across Berlin's DST changes on 28 March and 31 October.

let admin: Caller

beforeAll(async () => {
  admin = await adminSession()
})

interface Scheduled {
  id: string
  stub: DurableObjectStub<ProbeMonitor>
  ping(at: string, signal?: Ping['signal']): Promise<boolean>
}

/** A heartbeat probe created through probes.create, pinged straight at its monitor at chosen times. */
async function scheduledHeartbeat(config: Record<string, unknown>): Promise<Scheduled> {
  const probe = await createProbe(admin, {
    type: 'heartbeat',
    target: 'cron job',
    config,
  })
  const token = parseHeartbeatToken(probe.heartbeatToken ?? '')
  if (!token) throw new Error('no heartbeat token')
  const stub = workerEnv.PROBE_MONITOR.getByName(probe.id)
  const ping = (at: string, signal: Ping['signal'] = 'success') =>
    stub.ping({ secret: token.secret, signal, exitStatus: null, body: '', at: Date.parse(at) })
  return { id: probe.id, stub, ping }
}

async function runAlarmsUntilDown(stub: DurableObjectStub<ProbeMonitor>): Promise<void> {
  for (let i = 0; i < 10; i++) {
    if ((await stub.live())?.state === 'down') return
    if (!(await runDurableObjectAlarm(stub))) break
  }
  expect((await stub.live())?.state).toBe('down')
}

async function events(probeId: string) {
  const rows = await db(workerEnv.DB)
    .select()
    .from(probeResults)
    .where(and(eq(probeResults.probeId, probeId), eq(probeResults.kind, 'event')))
    .orderBy(probeResults.id)
  return rows.map((row) => ({ state: row.state, at: row.at.toISOString(), detail: row.detail }))
}

describe('heartbeat schedules: the monitor', () => {
  it('should expect 03:00 Berlin time each day across the March change, and go down a grace after a missed run', async () => {
    const probe = await scheduledHeartbeat({
      schedule: '0 3 * * *',
      timezone: 'Europe/Berlin',
      graceSeconds: 600,
    })
    // Saturday 03:00 CET is 02:00 UTC; Sunday 03:00 CEST is 01:00 UTC, 23 hours on.
    expect(await probe.ping('2027-03-27T02:00:20Z')).toBe(true)
    expect(await probe.ping('2027-03-28T01:03:00Z')).toBe(true)
    expect((await probe.stub.live())?.state).toBe('up')
    // Monday's run at 01:00 UTC is missed: down at 01:10, not at Sunday's time + 24 h.
    await runAlarmsUntilDown(probe.stub)
    expect(await events(probe.id)).toEqual([
      { state: 'up', at: '2027-03-27T02:00:20.000Z', detail: 'ping received' },
      {
        state: 'down',
        at: '2027-03-29T01:10:00.000Z',
        detail: 'no ping for the run due 2027-03-29T01:00:00.000Z (0 3 * * * Europe/Berlin, grace 600 s)',
      },
    ])
    // A late ping brings it back up.
    expect(await probe.ping('2027-03-29T01:30:00Z')).toBe(true)
    expect((await probe.stub.live())?.state).toBe('up')
  })

  it('should expect 03:00 Berlin time across the October change, when the day has 25 hours', async () => {
    const probe = await scheduledHeartbeat({
      schedule: '0 3 * * *',
      timezone: 'Europe/Berlin',
      graceSeconds: 600,
    })
    // Saturday 03:00 CEST is 01:00 UTC; Sunday 03:00 CET is 02:00 UTC. A 24-hour interval would have gone down
    // at 01:10 UTC on Sunday.
    await probe.ping('2027-10-30T01:00:30Z')
    await probe.ping('2027-10-31T02:05:00Z')
    await runAlarmsUntilDown(probe.stub)
    expect(await events(probe.id)).toEqual([
      { state: 'up', at: '2027-10-30T01:00:30.000Z', detail: 'ping received' },
      {
        state: 'down',
        at: '2027-11-01T02:10:00.000Z',
        detail: 'no ping for the run due 2027-11-01T02:00:00.000Z (0 3 * * * Europe/Berlin, grace 600 s)',
      },
    ])
  })

  it('should expect a ping every quarter hour on */15, and count each missed run once', async () => {
    const probe = await scheduledHeartbeat({ schedule: '*/15 * * * *', graceSeconds: 60 })
    await probe.ping('2027-01-04T10:00:10Z')
    await probe.ping('2027-01-04T10:15:40Z')
    await runAlarmsUntilDown(probe.stub)
    expect((await events(probe.id)).at(-1)).toEqual({
      state: 'down',
      at: '2027-01-04T10:31:00.000Z',
      detail: 'no ping for the run due 2027-01-04T10:30:00.000Z (*/15 * * * * UTC, grace 60 s)',
    })
    expect(await probe.stub.live()).toMatchObject({ consecutiveFailures: 1 })
    // The next missed run counts from the one missed before it, a quarter hour on.
    await runDurableObjectAlarm(probe.stub)
    const live = await probe.stub.live()
    expect(live).toMatchObject({ consecutiveFailures: 2 })
    expect(live?.lastResult?.detail).toContain('due 2027-01-04T10:45:00.000Z')
  })

  it('should keep the /start grace: a run started and not finished within it is down', async () => {
    const probe = await scheduledHeartbeat({
      schedule: '0 3 * * *',
      timezone: 'Europe/Berlin',
      graceSeconds: 300,
    })
    await probe.ping('2027-06-01T01:00:05Z')
    expect(await probe.ping('2027-06-02T01:00:00Z', 'start')).toBe(true)
    await runAlarmsUntilDown(probe.stub)
    expect((await events(probe.id)).at(-1)).toMatchObject({
      state: 'down',
      at: '2027-06-02T01:05:00.000Z',
      detail: 'started, not finished within 300 s',
    })
  })
})
