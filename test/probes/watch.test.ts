import { runInDurableObject, SELF } from 'cloudflare:test'
import { beforeAll, describe, expect, it } from 'vitest'
import {
  WATCH_RETRY_MS,
  WATCH_RING_SIZE,
  WATCH_STREAM_LIFETIME_MS,
  type WatchHub,
} from '../../durable-objects/watch-hub'
import type { Caller } from '../helpers/http'
import { adminSession, operatorSession, tokenFor } from '../helpers/principals'
import {
  changeProbe,
  type Face,
  insertProbe,
  openWatch,
  rowOf,
  type WatchEvent,
  workerEnv,
} from './watch-stream'

// Generous for a shared 2-core machine: an event is due intervalMs after the change that opened its window.
const INTERVAL = 250
const DUE = INTERVAL + 750
// Long enough that an event due after INTERVAL would have arrived.
const QUIET = INTERVAL * 3

let admin: Caller
let operator: Caller

beforeAll(async () => {
  admin = await adminSession()
  operator = await operatorSession(admin)
})

const hub = () => workerEnv.WATCH_HUB.getByName('probes')
const target = () => ({ targetKind: 'site' as const, targetId: crypto.randomUUID() })
const rows = (events: WatchEvent[]) => events.map((event) => event.row)
const ids = (events: WatchEvent[]) => events.map((event) => Number(event.eventId))

describe('probes.watch: who may open it', () => {
  it.each<Face>(['rpc', 'rest', 'get'])('should let an operator watch on the %s face', async (face) => {
    const where = target()
    const probe = await insertProbe(where)
    const stream = await openWatch(operator, { ...where, intervalMs: INTERVAL }, { face })
    expect(stream.status, stream.text()).toBe(200)
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/)
    expect(stream.headers.get('cache-control')).toBe('no-store')
    const first = await stream.next(DUE)
    expect(first?.row).toEqual(rowOf(probe))
    expect(first?.eventId).toMatch(/^\d+$/)
    expect(stream.text()).toMatch(new RegExp(`^retry: ${WATCH_RETRY_MS}\\n`))
    await stream.close()
  })

  it('should refuse a token without probes:view with 403 before any stream starts', async () => {
    const token = await tokenFor(admin, ['fleet:view'])
    for (const face of ['rpc', 'get'] as const) {
      const stream = await openWatch(token, { intervalMs: INTERVAL }, { face })
      expect(stream.status, stream.text()).toBe(403)
      expect(stream.headers.get('content-type')).toMatch(/^application\/problem\+json/)
      expect(JSON.parse(stream.text())).toMatchObject({ code: 'forbidden' })
    }
    const anonymous = await openWatch({}, {}, { face: 'get' })
    expect(anonymous.status, anonymous.text()).toBe(401)
  })

  it.each<[Face, number | string]>([
    ['rpc', 100],
    ['rest', 10_001],
    ['get', 100],
    ['get', 'fast'],
  ])('should answer 400 naming intervalMs on the %s face for %s', async (face, intervalMs) => {
    const stream = await openWatch(operator, { intervalMs }, { face })
    expect(stream.status, stream.text()).toBe(400)
    const problem = JSON.parse(stream.text()) as { code: string; issues: { path: string }[] }
    expect(problem.code).toBe('validation_failed')
    expect(problem.issues.map((issue) => issue.path)).toEqual(['intervalMs'])
  })

  it('should answer 400 naming last-event-id on the GET face when the header is longer than 64 characters', async () => {
    const stream = await openWatch(
      operator,
      { intervalMs: INTERVAL },
      { face: 'get', lastEventId: 'e'.repeat(65) },
    )
    expect(stream.status, stream.text()).toBe(400)
    const problem = JSON.parse(stream.text()) as { code: string; issues: { path: string }[] }
    expect(problem.code).toBe('validation_failed')
    expect(problem.issues.map((issue) => issue.path)).toEqual(['last-event-id'])
  })

  it('should refuse unknown fields in a POST body but ignore extra query parameters on GET', async () => {
    const refused = await openWatch(operator, { intervalMs: INTERVAL, verbose: true })
    expect(refused.status, refused.text()).toBe(400)
    expect(refused.text()).toContain('verbose')
    const where = target()
    const probe = await insertProbe(where)
    const stream = await openWatch(operator, { ...where, intervalMs: '500', _: '123' }, { face: 'get' })
    expect(stream.status, stream.text()).toBe(200)
    expect((await stream.next(DUE))?.row).toEqual(rowOf(probe))
    await stream.close()
  })
})

describe('probes.watch: events', () => {
  it('should start with one event per current probe: not archived, filtered by target, newest first', async () => {
    const where = target()
    const older = await insertProbe({ ...where, createdAt: new Date(Date.now() - 60_000) })
    const newer = await insertProbe({
      ...where,
      state: 'up',
      lastChangedAt: new Date('2026-10-01T00:00:00Z'),
    })
    await insertProbe({ ...where, archivedAt: new Date() })
    await insertProbe({ targetKind: 'site', targetId: crypto.randomUUID() })
    const stream = await openWatch(operator, { ...where, intervalMs: INTERVAL })
    const snapshot = await stream.take(2, DUE)
    expect(rows(snapshot)).toEqual([rowOf(newer), rowOf(older)])
    // Only the last opening event carries the id: a stream cut inside the snapshot gets a fresh one.
    expect(snapshot.map((event) => event.eventId)).toEqual(['', expect.stringMatching(/^\d+$/)])
    expect(await stream.next(QUIET)).toBeNull()
    expect(JSON.parse(stream.text().split('data: ')[1]?.split('\n')[0] ?? '')).toStrictEqual(rowOf(newer))
    await stream.close()
  })

  it('should set the id with no event when no probe matches, and send the first change after it', async () => {
    const where = target()
    const stream = await openWatch(operator, { ...where, intervalMs: INTERVAL })
    expect(await stream.next(QUIET)).toBeNull()
    const opened = /^retry: \d+\n\nid: (\d+)\n\n$/.exec(stream.text())
    expect(opened, stream.text()).not.toBeNull()
    const changed = await changeProbe(await insertProbe(where), 'up')
    const event = await stream.next(DUE)
    expect(event?.row).toEqual(rowOf(changed))
    expect(Number(event?.eventId)).toBeGreaterThan(Number(opened?.[1]))
    await stream.close()
  })

  it('should filter by targetKind alone', async () => {
    const instance = await insertProbe({ targetKind: 'instance', targetId: crypto.randomUUID() })
    const site = await insertProbe(target())
    const stream = await openWatch(operator, { targetKind: 'instance', intervalMs: INTERVAL })
    const first = rows(await stream.snapshot(DUE)).map((row) => row.id)
    expect(first).toContain(instance.id)
    expect(first).not.toContain(site.id)
    await changeProbe(site, 'down')
    const changed = await changeProbe(instance, 'down')
    expect((await stream.next(DUE))?.row).toEqual(rowOf(changed))
    expect(await stream.next(QUIET)).toBeNull()
    await stream.close()
  })

  it('should send one event for a change within intervalMs, and nothing while nothing changes', async () => {
    const where = target()
    const probe = await insertProbe(where)
    const stream = await openWatch(operator, { ...where, intervalMs: INTERVAL })
    const snapshot = await stream.next(DUE)
    expect(await stream.next(QUIET)).toBeNull()
    const started = Date.now()
    const changed = await changeProbe(probe, 'up')
    const event = await stream.next(DUE)
    expect(Date.now() - started).toBeLessThan(DUE)
    expect(event?.row).toEqual(rowOf(changed))
    expect(Number(event?.eventId)).toBeGreaterThan(Number(snapshot?.eventId))
    expect(await stream.next(QUIET)).toBeNull()
    await stream.close()
  })

  it('should send every change of one interval as its own event, in order: a blip up → down → up is three', async () => {
    const where = target()
    const first = await insertProbe(where)
    const second = await insertProbe(where)
    const stream = await openWatch(operator, { ...where, intervalMs: 1000 })
    await stream.take(2, DUE)
    const up = await changeProbe(first, 'up')
    const down = await changeProbe(first, 'down')
    const other = await changeProbe(second, 'degraded')
    const back = await changeProbe(first, 'up')
    const events = await stream.take(4, 1000 + DUE)
    expect(rows(events)).toEqual([rowOf(up), rowOf(down), rowOf(other), rowOf(back)])
    // Each event is its own change: ids strictly increase, one apart (nothing else changed in between here).
    const seqs = ids(events)
    expect(seqs.slice(1).map((seq, i) => seq - (seqs[i] ?? 0))).toEqual([1, 1, 1])
    expect(await stream.next(1000 + 250)).toBeNull()
    await stream.close()
  })

  it('should send an event when only enabled flips', async () => {
    const where = target()
    const probe = await insertProbe({
      ...where,
      state: 'up',
      lastChangedAt: new Date('2026-10-02T00:00:00Z'),
    })
    const stream = await openWatch(operator, { ...where, intervalMs: INTERVAL })
    await stream.next(DUE)
    const paused = { ...probe, enabled: false }
    await workerEnv.DB.prepare('UPDATE probes SET enabled = 0 WHERE id = ?').bind(probe.id).run()
    await hub().publish(paused)
    expect((await stream.next(DUE))?.row).toEqual(rowOf(paused))
    expect(await stream.next(QUIET)).toBeNull()
    await stream.close()
  })

  it('should ignore a publish that changes nothing and changes outside the filter', async () => {
    const where = target()
    const probe = await insertProbe(where)
    const elsewhere = await insertProbe(target())
    const stream = await openWatch(operator, { ...where, intervalMs: INTERVAL })
    await stream.next(DUE)
    const changed = await changeProbe(probe, 'down')
    expect((await stream.next(DUE))?.row).toEqual(rowOf(changed))
    await hub().publish(changed)
    await changeProbe(elsewhere, 'down')
    expect(await stream.next(QUIET)).toBeNull()
    await stream.close()
  })
})

describe('probes.watch: resuming', () => {
  it('should replay exactly the changes a reopened stream missed after Last-Event-ID, in order, none twice', async () => {
    const where = target()
    const a = await insertProbe(where)
    const b = await insertProbe(where)
    const first = await openWatch(operator, { ...where, intervalMs: INTERVAL })
    await first.take(2, DUE)
    const seen = await changeProbe(a, 'up')
    const last = await first.next(DUE)
    expect(last?.row).toEqual(rowOf(seen))
    await first.close()

    const missedA = await changeProbe(a, 'down')
    const missedB1 = await changeProbe(b, 'up')
    await changeProbe(await insertProbe(target()), 'up')
    const missedB2 = await changeProbe(b, 'down')
    const missedA2 = await changeProbe(a, 'up')

    const reopened = await openWatch(
      operator,
      { ...where, intervalMs: INTERVAL },
      { lastEventId: last?.eventId },
    )
    expect(reopened.status, reopened.text()).toBe(200)
    const replay = await reopened.take(4, DUE)
    expect(rows(replay)).toEqual([rowOf(missedA), rowOf(missedB1), rowOf(missedB2), rowOf(missedA2)])
    const seqs = ids(replay)
    expect(seqs[0]).toBeGreaterThan(Number(last?.eventId))
    expect([...seqs].sort((x, y) => x - y)).toEqual(seqs)
    expect(new Set(seqs).size).toBe(4)
    expect(await reopened.next(QUIET)).toBeNull()
    const live = await changeProbe(b, 'up')
    const liveEvent = await reopened.next(DUE)
    expect(liveEvent?.row).toEqual(rowOf(live))
    await reopened.close()

    // Resumed from the middle of the replay: only what came after that event.
    const middle = await openWatch(
      operator,
      { ...where, intervalMs: INTERVAL },
      { lastEventId: replay[1]?.eventId },
    )
    expect(rows(await middle.take(3, DUE))).toEqual([rowOf(missedB2), rowOf(missedA2), rowOf(live)])
    expect(await middle.next(QUIET)).toBeNull()
    await middle.close()

    // Nothing missed since the last event: the stream stays silent until the next change.
    const current = await openWatch(
      operator,
      { ...where, intervalMs: INTERVAL },
      { lastEventId: liveEvent?.eventId },
    )
    expect(current.status, current.text()).toBe(200)
    expect(await current.next(QUIET)).toBeNull()
    expect(current.text()).toBe(`retry: ${WATCH_RETRY_MS}\n\n`)
    await current.close()
  })

  it.each([
    ['unknown', '999999999999'],
    ['not a sequence', 'yesterday'],
  ])('should answer a fresh snapshot to an %s Last-Event-ID', async (_, lastEventId) => {
    const where = target()
    const probe = await insertProbe(where)
    const stream = await openWatch(operator, { ...where, intervalMs: INTERVAL }, { lastEventId })
    expect((await stream.next(DUE))?.row).toEqual(rowOf(probe))
    await stream.close()
  })

  it('should answer a fresh snapshot when the id fell out of the ring of recent changes', async () => {
    const where = target()
    const probe = await insertProbe(where)
    const stream = await openWatch(operator, { ...where, intervalMs: INTERVAL })
    const snapshot = await stream.next(DUE)
    await stream.close()
    // Only the hub's ring matters here, so most changes skip D1; the last one is a full change.
    for (let i = 0; i < WATCH_RING_SIZE; i++) {
      await hub().publish({
        ...probe,
        state: 'up',
        lastChangedAt: new Date(Date.UTC(2020, 0, 1, 0, 0, i)).toISOString(),
      })
    }
    const changed = await changeProbe(probe, 'down')
    const reopened = await openWatch(
      operator,
      { ...where, intervalMs: INTERVAL },
      { lastEventId: snapshot?.eventId },
    )
    expect((await reopened.next(DUE))?.row).toEqual(rowOf(changed))
    expect(await reopened.next(QUIET)).toBeNull()
    await reopened.close()
  }, 60_000)
})

describe('probes.watch: the hub keeps streams alive and lets them go', () => {
  it('should send keepalive comments, drop streams whose reader left, and end streams past their lifetime', async () => {
    const where = target()
    await insertProbe(where)
    const kept = await openWatch(operator, { ...where, intervalMs: INTERVAL })
    const left = await openWatch(operator, { ...where, intervalMs: INTERVAL })
    await kept.next(DUE)
    await left.next(DUE)
    const before = await hub().streams()
    await left.close()
    // A reader that left is dropped when the hub's stream errors, at the latest when a keepalive write fails.
    for (let i = 0; i < 3; i++)
      await runInDurableObject(hub(), (instance: WatchHub) => instance.sweep(Date.now()))
    expect(await hub().streams()).toBeLessThanOrEqual(before - 1)
    await kept.next(QUIET)
    expect(kept.text()).toContain(': keepalive\n\n')
    expect(kept.ended()).toBe(false)

    await runInDurableObject(hub(), (instance: WatchHub) =>
      instance.sweep(Date.now() + WATCH_STREAM_LIFETIME_MS),
    )
    expect(await kept.next(DUE)).toBeNull()
    expect(kept.ended()).toBe(true)
    await kept.close()
  })
})

describe('probes.watch in the OpenAPI document', () => {
  it('should document the 200 of every face as an event stream of ProbeWatchEvent data, resumable by Last-Event-ID', async () => {
    const doc = (await (await SELF.fetch('https://panel.test/api/v1/openapi.json')).json()) as {
      paths: Record<string, Record<string, Operation>>
      components: { schemas: Record<string, { properties?: Record<string, unknown>; required?: string[] }> }
    }
    const faces = [
      doc.paths['/api/rpc/probes.watch']?.post,
      doc.paths['/api/v1/probes/watch']?.post,
      doc.paths['/api/v1/probes/watch']?.get,
    ]
    expect(faces.map((op) => op?.operationId)).toEqual([
      'rpc:probes.watch',
      'probes.watch',
      'probes.watch.rest',
    ])
    for (const op of faces) {
      expect(op?.responses['200']?.content).toEqual({
        'text/event-stream': {
          schema: {
            type: 'string',
            contentMediaType: 'text/event-stream',
            contentSchema: { $ref: '#/components/schemas/ProbeWatchEvent' },
            description: expect.stringContaining('Server-Sent Events'),
          },
        },
      })
      expect(op?.parameters?.find((p) => p.name === 'last-event-id')?.in).toBe('header')
    }
    // One event's data is one probe, nothing around it.
    const event = doc.components.schemas.ProbeWatchEvent
    const fields = ['enabled', 'id', 'lastChangedAt', 'name', 'state']
    expect(Object.keys(event?.properties ?? {}).sort()).toEqual(fields)
    expect([...(event?.required ?? [])].sort()).toEqual(fields)
    const interval = faces[2]?.parameters?.find((p) => p.name === 'intervalMs')
    expect(interval).toMatchObject({
      in: 'query',
      schema: { type: 'integer', minimum: 250, maximum: 10_000 },
    })
  })
})

interface Operation {
  operationId: string
  parameters?: { name: string; in: string; schema?: unknown }[]
  responses: Record<string, { content?: unknown }>
}
