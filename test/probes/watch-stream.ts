import { SELF } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { db } from '../../src/db/client'
import { probes } from '../../src/db/schema/probes'
import { HttpConfigSchema, NotifyConfigSchema } from '../../src/probes/config'
import type { WatchChange } from '../../src/probes/monitor/api'
import { assertContract, parseEventStream, type StreamEvent } from '../helpers/contract'
import { type Caller, ORIGIN } from '../helpers/http'

export const workerEnv = env as unknown as import('../../src/env').Env

export interface WatchRow {
  id: string
  name: string
  state: string
  enabled: boolean
  lastChangedAt: string | null
}
/** One event as a test reads it: its data (one probe) and the stream's last event id when it arrived. */
export interface WatchEvent {
  eventId: string
  row: WatchRow
}

/** An open watch stream as a test reads it: events one at a time, with a deadline, and the raw text. */
export interface OpenStream {
  status: number
  headers: Headers
  /** The next event, or null when none arrives within `ms`. */
  next(ms: number): Promise<WatchEvent | null>
  /** The next `count` events; fails naming how many came when they do not all arrive within `ms`. */
  take(count: number, ms: number): Promise<WatchEvent[]>
  /** A fresh stream's opening events, one per probe: those up to the first that carries an id (the last). */
  snapshot(ms: number): Promise<WatchEvent[]>
  /** Everything read so far (comments and `retry:` included). */
  text(): string
  /** True once the panel ended the stream. */
  ended(): boolean
  /** Cancels the stream and checks everything read against the OpenAPI document. */
  close(): Promise<void>
}

export type Face = 'rpc' | 'rest' | 'get'

/** Opens probes.watch on one face with a caller's credentials; an error answer is read whole. */
export async function openWatch(
  caller: Caller,
  input: Record<string, unknown>,
  options: { face?: Face; lastEventId?: string } = {},
): Promise<OpenStream> {
  const face = options.face ?? 'rpc'
  const headers: Record<string, string> = {}
  if (caller.token) headers.authorization = `Bearer ${caller.token}`
  if (caller.cookie) headers.cookie = caller.cookie
  if (options.lastEventId !== undefined) headers['last-event-id'] = options.lastEventId
  let request: Request
  if (face === 'get') {
    const query = new URLSearchParams(Object.entries(input).map(([key, value]) => [key, String(value)]))
    request = new Request(`${ORIGIN}/api/v1/probes/watch?${query}`, { headers })
  } else {
    const path = face === 'rpc' ? '/api/rpc/probes.watch' : '/api/v1/probes/watch'
    headers['content-type'] = 'application/json'
    request = new Request(`${ORIGIN}${path}`, { method: 'POST', headers, body: JSON.stringify(input) })
  }
  const response = await SELF.fetch(request)
  const exchange = {
    method: request.method,
    url: request.url,
    requestHeaders: request.headers,
    requestBody: face === 'get' ? undefined : JSON.stringify(input),
    status: response.status,
    responseHeaders: response.headers,
  }
  const reader = response.body?.getReader()
  const decoder = new TextDecoder()
  let raw = ''
  let seen = 0
  let done = false
  let pending: Promise<void> | null = null
  const pull = (): Promise<void> => {
    pending ??= (reader ? reader.read() : Promise.resolve({ done: true, value: undefined })).then((chunk) => {
      pending = null
      if (chunk.done) done = true
      else raw += decoder.decode(chunk.value, { stream: true })
    })
    return pending
  }
  const toEvent = (event: StreamEvent): WatchEvent => ({
    eventId: event.id,
    row: JSON.parse(event.data) as WatchRow,
  })
  const stream: OpenStream = {
    status: response.status,
    headers: response.headers,
    text: () => raw,
    ended: () => done,
    async next(ms) {
      const deadline = Date.now() + ms
      for (;;) {
        const events = parseEventStream(raw).events
        const event = events[seen]
        if (event) {
          seen += 1
          return toEvent(event)
        }
        const left = deadline - Date.now()
        if (done || left <= 0) return null
        await Promise.race([pull(), new Promise((resolve) => setTimeout(resolve, left))])
      }
    },
    async take(count, ms) {
      const deadline = Date.now() + ms
      const events: WatchEvent[] = []
      while (events.length < count) {
        const event = await stream.next(Math.max(0, deadline - Date.now()))
        if (!event)
          throw new Error(`${events.length} of ${count} events within ${ms} ms: ${JSON.stringify(events)}`)
        events.push(event)
      }
      return events
    },
    async snapshot(ms) {
      const deadline = Date.now() + ms
      const events: WatchEvent[] = []
      for (;;) {
        const event = await stream.next(Math.max(0, deadline - Date.now()))
        if (!event) throw new Error(`the snapshot did not end within ${ms} ms: ${JSON.stringify(events)}`)
        events.push(event)
        if (event.eventId !== '') return events
      }
    },
    async close() {
      if (reader) await reader.cancel().catch(() => undefined)
      // An event stream is checked up to its last complete event; any other answer whole.
      const isStream = response.headers.get('content-type')?.startsWith('text/event-stream')
      const complete = isStream ? raw.slice(0, raw.length - parseEventStream(raw).rest.length) : raw
      await assertContract({ ...exchange, responseText: complete })
    },
  }
  if (response.status !== 200) {
    while (!done) await pull()
    await stream.close()
  }
  return stream
}

let probeCount = 0

/** Inserts a probe row the way probes.create stores one (written directly: these tests are about the stream). */
export async function insertProbe(
  values: Partial<typeof probes.$inferInsert> & Pick<typeof probes.$inferInsert, 'targetKind'>,
): Promise<WatchChange> {
  const now = new Date()
  const row = {
    id: crypto.randomUUID(),
    name: `watched ${++probeCount}`,
    type: 'http' as const,
    targetId: null,
    target: 'https://watched.example.com/health',
    config: HttpConfigSchema.parse({}),
    notifyConfig: NotifyConfigSchema.parse({}),
    state: 'paused' as const,
    enabled: true,
    consecutiveFailures: 0,
    createdAt: now,
    updatedAt: now,
    ...values,
  }
  await db(workerEnv.DB).insert(probes).values(row)
  return {
    id: row.id,
    name: row.name,
    state: row.state,
    enabled: row.enabled,
    lastChangedAt: row.lastChangedAt ? row.lastChangedAt.toISOString() : null,
    targetKind: row.targetKind,
    targetId: row.targetId ?? null,
  }
}

let clock = Date.parse('2026-11-01T00:00:00Z')

/**
 * A probe's displayed state changes the way its ProbeMonitor does it: the D1 row first, then the WatchHub hears
 * of it. Each change gets a later lastChangedAt.
 */
export async function changeProbe(probe: WatchChange, state: WatchChange['state']): Promise<WatchChange> {
  clock += 1000
  const changed = { ...probe, state, lastChangedAt: new Date(clock).toISOString() }
  await workerEnv.DB.prepare('UPDATE probes SET state = ?, last_changed_at = ? WHERE id = ?')
    .bind(state, clock, probe.id)
    .run()
  await workerEnv.WATCH_HUB.getByName('probes').publish(changed)
  return changed
}

/** The watch row of a change. */
export function rowOf(change: WatchChange): WatchRow {
  return {
    id: change.id,
    name: change.name,
    state: change.state,
    enabled: change.enabled,
    lastChangedAt: change.lastChangedAt,
  }
}
