import { SELF } from 'cloudflare:test'
import { beforeAll, describe, expect, it } from 'vitest'
import { createClient, PanelError } from '../../src/client'
import { STREAM_PROCEDURES } from '../../src/client/stream-procedures'
import type { WatchChange } from '../../src/probes/monitor/api'
import { procedures } from '../../src/rpc/registry'
import { type Caller, ORIGIN } from '../helpers/http'
import { adminSession, tokenFor } from '../helpers/principals'
import { changeProbe, insertProbe, rowOf } from './watch-stream'

let token: string

beforeAll(async () => {
  const created = await tokenFor(await adminSession(), ['probes:view'])
  token = created.token ?? ''
})

const clientFor = (caller: Caller = { token }) =>
  createClient({ baseUrl: ORIGIN, token: caller.token, fetch: (input, init) => SELF.fetch(input, init) })
const target = () => ({ targetKind: 'node' as const, targetId: crypto.randomUUID() })

/** The next value of an iterator, failing the test when it takes longer than `ms`. */
async function within<T>(ms: number, next: Promise<IteratorResult<T>>): Promise<IteratorResult<T>> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no frame within ${ms} ms`)), ms)
  })
  try {
    return await Promise.race([next, late])
  } finally {
    clearTimeout(timer)
  }
}

describe('client.probes.watch', () => {
  it('should yield each event’s probe object as it is, tell the ids, and stop the stream when the loop breaks', async () => {
    const where = target()
    const probe = await insertProbe(where)
    const client = clientFor()
    const seen = []
    const eventIds: string[] = []
    const changes: WatchChange[] = []
    const onEventId = (id: string) => eventIds.push(id)
    for await (const event of client.probes.watch({ ...where, intervalMs: 250 }, { onEventId })) {
      seen.push(event)
      if (seen.length === 1) {
        // A blip inside one interval: three objects, in order.
        changes.push(await changeProbe(probe, 'up'))
        changes.push(await changeProbe(probe, 'down'))
        changes.push(await changeProbe(probe, 'up'))
      }
      if (seen.length === 4) break
    }
    expect(seen).toStrictEqual([rowOf(probe), ...changes.map(rowOf)])
    // Heard after each object was taken; the last one's loop body broke out, so its id was not told.
    expect(eventIds).toHaveLength(3)
    const seqs = eventIds.map(Number)
    expect(seqs.every((seq, i) => i === 0 || seq === (seqs[i - 1] ?? 0) + 1)).toBe(true)
  })

  it('should end when its signal aborts', async () => {
    const where = target()
    await insertProbe(where)
    const controller = new AbortController()
    const stream = clientFor().probes.watch({ ...where, intervalMs: 250 }, { signal: controller.signal })
    expect((await within(2000, stream.next())).value).toMatchObject({ state: 'paused' })
    const pending = stream.next()
    controller.abort()
    expect(await within(2000, pending)).toEqual({ done: true, value: undefined })
  })

  it('should resume after the id onEventId told with exactly what was missed', async () => {
    const where = target()
    const probe = await insertProbe(where)
    let lastEventId: string | undefined
    const onEventId = (id: string) => {
      lastEventId = id
    }
    const controller = new AbortController()
    const first = clientFor().probes.watch(
      { ...where, intervalMs: 250 },
      { onEventId, signal: controller.signal },
    )
    expect((await within(2000, first.next())).value).toStrictEqual(rowOf(probe))
    // Asking for more is taking the first: its id is told while the stream waits.
    const waiting = first.next()
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(lastEventId).toMatch(/^\d+$/)
    controller.abort()
    expect(await within(2000, waiting)).toEqual({ done: true, value: undefined })
    const missed = [await changeProbe(probe, 'down'), await changeProbe(probe, 'up')]
    const resumed = clientFor().probes.watch({ ...where, intervalMs: 250 }, { lastEventId })
    expect((await within(2000, resumed.next())).value).toStrictEqual(rowOf(missed[0] as WatchChange))
    expect((await within(2000, resumed.next())).value).toStrictEqual(rowOf(missed[1] as WatchChange))
    await resumed.return()
  })

  it('should throw PanelError from the first step when the panel refuses the stream', async () => {
    const { token: fleetOnly } = await tokenFor(await adminSession(), ['fleet:view'])
    const stream = clientFor({ token: fleetOnly }).probes.watch()
    const error = await stream.next().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(PanelError)
    expect((error as PanelError).problem.code).toBe('forbidden')
    expect((error as PanelError).procedure).toBe('probes.watch')
  })

  it('should parse events split anywhere, with CRLF, comments, multi-line data and named events skipped', async () => {
    const chunks = [
      'retry: 10\r',
      '\n: a comment\r\ndata: {"id":"p1","st',
      'ate":"up"}\r\n\r\nid: 7\r\ndata: {"id":"p2"}\r\n\r\nevent: other\ndata: {}\n\nid: 8\ndata: {"id":"p1",\r',
      '\ndata: "state":"down"}\n\ndata: {"id":"p2","state":"down"}\n\nid: 9\n\n',
    ]
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk))
        controller.close()
      },
    })
    const client = createClient({ baseUrl: ORIGIN, fetch: async () => new Response(body, { status: 200 }) })
    const events = []
    const eventIds: string[] = []
    for await (const event of client.probes.watch({}, { onEventId: (id) => eventIds.push(id) }))
      events.push(event)
    expect(events).toEqual([
      { id: 'p1', state: 'up' },
      { id: 'p2' },
      { id: 'p1', state: 'down' },
      { id: 'p2', state: 'down' },
    ])
    // Told once per new id, the bare `id:` at the end included.
    expect(eventIds).toEqual(['7', '8', '9'])
  })

  it('should end on abort even when the fetch in use ignores the signal', async () => {
    const encoder = new TextEncoder()
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(encoder.encode('id: 1\ndata: {"id":"p1","state":"up"}\n\n'))
      },
    })
    const client = createClient({ baseUrl: ORIGIN, fetch: async () => new Response(body, { status: 200 }) })
    const controller = new AbortController()
    const stream = client.probes.watch({}, { signal: controller.signal })
    expect((await within(2000, stream.next())).value).toEqual({ id: 'p1', state: 'up' })
    const pending = stream.next()
    controller.abort()
    expect(await within(2000, pending)).toEqual({ done: true, value: undefined })
  })

  it('should know every stream procedure of the registry', () => {
    const streams = [...procedures].filter(([, proc]) => proc.stream).map(([name]) => name)
    expect([...STREAM_PROCEDURES].sort()).toEqual(streams.sort())
  })
})
