import { SELF } from 'cloudflare:test'
import { beforeAll, describe, expect, it } from 'vitest'
import { createClient, PanelError } from '../../src/client'
import { STREAM_PROCEDURES } from '../../src/client/stream-procedures'
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
  it('should yield parsed frames with their ids, and stop the stream when the loop breaks', async () => {
    const where = target()
    const probe = await insertProbe(where)
    const client = clientFor()
    const frames = []
    for await (const frame of client.probes.watch({ ...where, intervalMs: 250 })) {
      frames.push(frame)
      if (frame.kind === 'snapshot') await changeProbe(probe, 'up')
      else break
    }
    expect(frames[0]).toEqual({ id: expect.stringMatching(/^\d+$/), kind: 'snapshot', rows: [rowOf(probe)] })
    expect(frames[1]).toMatchObject({ kind: 'change', rows: [{ id: probe.id, state: 'up' }] })
    expect(Number(frames[1]?.id)).toBeGreaterThan(Number(frames[0]?.id))
  })

  it('should end when its signal aborts', async () => {
    const where = target()
    await insertProbe(where)
    const controller = new AbortController()
    const stream = clientFor().probes.watch({ ...where, intervalMs: 250 }, { signal: controller.signal })
    expect((await within(2000, stream.next())).value).toMatchObject({ kind: 'snapshot' })
    const pending = stream.next()
    controller.abort()
    expect(await within(2000, pending)).toEqual({ done: true, value: undefined })
  })

  it('should resume after lastEventId with only what was missed', async () => {
    const where = target()
    const probe = await insertProbe(where)
    const first = clientFor().probes.watch({ ...where, intervalMs: 250 })
    const snapshot = (await within(2000, first.next())).value
    await first.return()
    const missed = await changeProbe(probe, 'down')
    const resumed = clientFor().probes.watch(
      { ...where, intervalMs: 250 },
      { lastEventId: snapshot && 'id' in snapshot ? snapshot.id : '' },
    )
    const frame = (await within(2000, resumed.next())).value
    expect(frame).toMatchObject({ kind: 'change', rows: [rowOf(missed)] })
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
      '\n: a comment\r\nid: 7\r\ndata: {"kind":"snap',
      'shot","rows":[]}\r\n\r\nevent: other\ndata: {}\n\nid: 8\ndata: {"kind":"change",\r',
      '\ndata: "rows":[]}\n\ndata: {"kind":"change","rows":[]}\n\n',
    ]
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk))
        controller.close()
      },
    })
    const client = createClient({ baseUrl: ORIGIN, fetch: async () => new Response(body, { status: 200 }) })
    const frames = []
    for await (const frame of client.probes.watch()) frames.push(frame)
    expect(frames).toEqual([
      { id: '7', kind: 'snapshot', rows: [] },
      { id: '8', kind: 'change', rows: [] },
      { id: '8', kind: 'change', rows: [] },
    ])
  })

  it('should end on abort even when the fetch in use ignores the signal', async () => {
    const encoder = new TextEncoder()
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(encoder.encode('id: 1\ndata: {"kind":"snapshot","rows":[]}\n\n'))
      },
    })
    const client = createClient({ baseUrl: ORIGIN, fetch: async () => new Response(body, { status: 200 }) })
    const controller = new AbortController()
    const stream = client.probes.watch({}, { signal: controller.signal })
    expect((await within(2000, stream.next())).value).toMatchObject({ id: '1', kind: 'snapshot' })
    const pending = stream.next()
    controller.abort()
    expect(await within(2000, pending)).toEqual({ done: true, value: undefined })
  })

  it('should know every stream procedure of the registry', () => {
    const streams = [...procedures].filter(([, proc]) => proc.stream).map(([name]) => name)
    expect([...STREAM_PROCEDURES].sort()).toEqual(streams.sort())
  })
})
