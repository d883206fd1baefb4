import { beforeAll, describe, expect, it } from 'vitest'
import { type Caller, call, ok, send } from '../helpers/http'
import { adminSession } from '../helpers/principals'
import { createProbe, type Probe } from './catalogue-fixture'

type Issues = { issues: { path: string; message: string }[] }
type Schema = { properties: Record<string, Record<string, unknown>> }

let admin: Caller

beforeAll(async () => {
  admin = await adminSession()
})

const heartbeat = { name: 'nightly', type: 'heartbeat', targetKind: 'external', target: 'nightly backup' }
const paths = (res: { body: Issues }) => res.body.issues.map((issue) => issue.path)

describe('heartbeat schedules: validation', () => {
  it('should store a schedule with its time zone and no interval, and default the zone to UTC', async () => {
    const berlin = await createProbe(admin, {
      ...heartbeat,
      config: { schedule: '0 3 * * *', timezone: 'Europe/Berlin', graceSeconds: 600 },
    })
    expect(berlin.config).toMatchObject({
      schedule: '0 3 * * *',
      timezone: 'Europe/Berlin',
      graceSeconds: 600,
    })
    expect(berlin.config).not.toHaveProperty('intervalSeconds')
    const utc = await createProbe(admin, { ...heartbeat, config: { schedule: '*/15 * * * *' } })
    expect(utc.config).toMatchObject({ schedule: '*/15 * * * *', timezone: 'UTC', graceSeconds: 3600 })
    // Neither: the daily interval, as before.
    const daily = await createProbe(admin, { ...heartbeat })
    expect(daily.config).toMatchObject({ intervalSeconds: 86_400 })
    expect(daily.config).not.toHaveProperty('schedule')
  })

  it('should refuse a bad cron, an unknown zone, both timings or a zone alone, naming the key, creating nothing', async () => {
    for (const [config, path] of [
      [{ schedule: 'every night' }, 'config.schedule'],
      [{ schedule: '61 * * * *' }, 'config.schedule'],
      [{ schedule: '0 0 3 * * *' }, 'config.schedule'],
      [{ schedule: '0 0 30 2 *' }, 'config.schedule'],
      [{ schedule: '0 3 * * *', timezone: 'Mars/Olympus' }, 'config.timezone'],
      [{ schedule: '0 3 * * *', intervalSeconds: 86_400 }, 'config.schedule'],
      [{ timezone: 'Europe/Berlin' }, 'config.timezone'],
    ] as const) {
      const res = await call<Issues>('probes.create', { ...heartbeat, name: 'refused', config }, admin)
      expect(res.status, res.text).toBe(400)
      expect(res.headers.get('content-type')).toContain('application/problem+json')
      expect(paths(res), JSON.stringify(config)).toEqual([path])
    }
    const never = await call<Issues>(
      'probes.create',
      { ...heartbeat, config: { schedule: '0 0 30 2 *' } },
      admin,
    )
    expect(never.body.issues[0]?.message).toBe('this schedule never runs')
    // A schedule is a heartbeat key only.
    const http = await call<Issues>(
      'probes.create',
      { name: 'refused', type: 'http', targetKind: 'external', target: 'https://x.probes-example.com/' },
      admin,
    )
    expect(http.status).toBe(200)
    const onHttp = await call<Issues>(
      'probes.update',
      { id: (http.body as unknown as Probe).id, config: { schedule: '0 3 * * *' } },
      admin,
    )
    expect(paths(onHttp)).toEqual(['config.schedule'])
    const names = (await ok<Probe[]>('probes.list', {}, admin)).map((probe) => probe.name)
    expect(names.filter((name) => name === 'refused')).toHaveLength(1)
  })

  it('should switch an interval heartbeat to a schedule and back when the other key is dropped', async () => {
    const probe = await createProbe(admin, { ...heartbeat, config: { intervalSeconds: 3600 } })
    const both = await call<Issues>(
      'probes.update',
      { id: probe.id, config: { schedule: '0 3 * * *' } },
      admin,
    )
    expect(both.status).toBe(400)
    expect(paths(both)).toEqual(['config.schedule'])
    const scheduled = await ok<Probe>(
      'probes.update',
      {
        id: probe.id,
        config: { schedule: '30 4 * * 1-5', timezone: 'America/New_York', intervalSeconds: null },
      },
      admin,
    )
    expect(scheduled.config).toMatchObject({ schedule: '30 4 * * 1-5', timezone: 'America/New_York' })
    expect(scheduled.config).not.toHaveProperty('intervalSeconds')
    const zone = await call<Issues>(
      'probes.update',
      { id: probe.id, config: { timezone: 'Nowhere/City' } },
      admin,
    )
    expect(paths(zone)).toEqual(['config.timezone'])
    const back = await ok<Probe>(
      'probes.update',
      { id: probe.id, config: { schedule: null, timezone: null, intervalSeconds: 7200 } },
      admin,
    )
    expect(back.config).toMatchObject({ intervalSeconds: 7200 })
    expect(back.config).not.toHaveProperty('schedule')
    expect(back.config).not.toHaveProperty('timezone')
  })
})

describe('heartbeat schedules in the OpenAPI document', () => {
  it('should document schedule and timezone on the heartbeat config and its patch', async () => {
    const doc = (await send('/api/v1/openapi.json')).body as {
      components: { schemas: Record<string, Schema> }
    }
    const config = doc.components.schemas.HeartbeatProbeConfig as Schema
    expect(config.properties.schedule).toMatchObject({ type: 'string', maxLength: 100 })
    expect(config.properties.timezone).toMatchObject({ type: 'string' })
    expect(config.properties.intervalSeconds).not.toHaveProperty('default')
    const patch = doc.components.schemas.HeartbeatProbeConfigPatch as Schema
    expect(Object.keys(patch.properties)).toEqual(
      expect.arrayContaining(['schedule', 'timezone', 'intervalSeconds']),
    )
  })
})
