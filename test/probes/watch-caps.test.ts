import { runInDurableObject } from 'cloudflare:test'
import { beforeAll, describe, expect, it } from 'vitest'
import type { WatchHub } from '../../durable-objects/watch-hub'
import {
  WATCH_CAP_RETRY_AFTER_SECONDS,
  WATCH_STREAMS_PER_PRINCIPAL,
  WatchCaps,
} from '../../src/probes/watch/caps'
import type { Caller } from '../helpers/http'
import { adminSession, operatorSession, tokenFor } from '../helpers/principals'
import { type OpenStream, openWatch, workerEnv } from './watch-stream'

const DUE = 1000
let admin: Caller

beforeAll(async () => {
  admin = await adminSession()
})

const hub = () => workerEnv.WATCH_HUB.getByName('probes')
// A filter no probe matches: the streams' snapshots are empty (no event, only an id) and nothing else is sent.
const nothing = () => ({ targetKind: 'site' as const, targetId: crypto.randomUUID(), intervalMs: 250 })

async function openMany(caller: Caller, count: number): Promise<OpenStream[]> {
  const streams: OpenStream[] = []
  for (let i = 0; i < count; i++) {
    const stream = await openWatch(caller, nothing())
    expect(stream.status, stream.text()).toBe(200)
    streams.push(stream)
  }
  return streams
}

function expectCapReached(stream: OpenStream) {
  expect(stream.status).toBe(429)
  expect(stream.headers.get('content-type')).toMatch(/^application\/problem\+json/)
  expect(stream.headers.get('retry-after')).toBe(String(WATCH_CAP_RETRY_AFTER_SECONDS))
  expect(JSON.parse(stream.text())).toMatchObject({
    status: 429,
    code: 'rate_limited',
    detail: `this principal already holds ${WATCH_STREAMS_PER_PRINCIPAL} open probes.watch streams; close one or wait`,
  })
}

describe('probes.watch caps on open streams', () => {
  it('should refuse one user past the cap with 429 and Retry-After, whatever credential, and let others watch', async () => {
    const token = await tokenFor(admin, ['probes:view'])
    const open = await openMany(admin, WATCH_STREAMS_PER_PRINCIPAL)
    expectCapReached(await openWatch(admin, nothing()))
    // A token the same user minted is the same person: no more streams.
    expectCapReached(await openWatch(token, nothing(), { face: 'get' }))
    const other = await openWatch(await operatorSession(admin), nothing())
    expect(other.status).toBe(200)
    await other.close()

    // A stream whose reader left frees its place (at once, or at the latest when a keepalive finds it).
    const before = await hub().streams()
    await open[0]?.close()
    for (let i = 0; i < 3; i++)
      await runInDurableObject(hub(), (instance: WatchHub) => instance.sweep(Date.now()))
    expect(await hub().streams()).toBe(before - 1)
    const again = await openWatch(token, nothing(), { face: 'rest' })
    expect(again.status, again.text()).toBe(200)
    // An empty snapshot sends no event, only the id to resume after.
    expect(await again.next(DUE)).toBeNull()
    expect(again.text()).toMatch(/^id: \d+$/m)
    expectCapReached(await openWatch(admin, nothing()))
    for (const stream of [...open.slice(1), again]) await stream.close()
  })

  it('should free every place of the streams that ended at their lifetime', async () => {
    const operator = await operatorSession(admin)
    const open = await openMany(operator, WATCH_STREAMS_PER_PRINCIPAL)
    await runInDurableObject(hub(), (instance: WatchHub) => instance.sweep(Date.now() + 10 * 60_000))
    for (const stream of open) {
      expect(await stream.next(DUE)).toBeNull()
      expect(stream.ended()).toBe(true)
      await stream.close()
    }
    const reopened = await openMany(operator, WATCH_STREAMS_PER_PRINCIPAL)
    for (const stream of reopened) await stream.close()
  })
})

describe('WatchCaps', () => {
  it('should cap each principal and the total, counting released streams out once', () => {
    const caps = new WatchCaps(2, 3)
    expect([caps.admit('a'), caps.admit('a')]).toEqual([null, null])
    expect(caps.admit('a')).toMatch(/^this principal already holds 2 /)
    expect(caps.admit('b')).toBeNull()
    expect(caps.admit('c')).toMatch(/^the panel already holds 3 /)
    caps.release('a')
    expect(caps.admit('c')).toBeNull()
    caps.release('z')
    expect(caps.admit('d')).toMatch(/^the panel already holds 3 /)
    caps.release('b')
    caps.release('b')
    expect([caps.admit('d'), caps.admit('d')]).toEqual([null, expect.stringMatching(/^the panel/)])
  })
})
