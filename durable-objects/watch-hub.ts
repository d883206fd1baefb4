import { DurableObject } from 'cloudflare:workers'
import type { z } from '@hono/zod-openapi'
import { and, desc, eq, isNull } from 'drizzle-orm'
import { db } from '../src/db/client'
import { probes } from '../src/db/schema/probes'
import type { Env } from '../src/env'
import type { ProbeTargetKind, WatchChange } from '../src/probes/monitor/api'
import type { WatchEventSchema } from '../src/probes/schemas'
import { capReachedResponse, WatchCaps } from '../src/probes/watch/caps'
import { readWatchRequest, type WatchOpen } from '../src/probes/watch/request'

/** The `retry:` hint every stream starts with: how long an EventSource waits before it reopens. */
export const WATCH_RETRY_MS = 2000
/** A comment is written to every stream this often, which is also how streams whose reader left are found. */
export const WATCH_KEEPALIVE_MS = 20_000
/** A stream ends itself this long after it opened (found by the keepalive tick, so up to 20 s later). */
export const WATCH_STREAM_LIFETIME_MS = 5 * 60_000
/** Recent changes kept for resuming; a Last-Event-ID older than these gets a fresh snapshot. */
export const WATCH_RING_SIZE = 1000
// Writes queued for a reader that stays connected but stopped reading; past this the stream is dropped.
const MAX_BACKLOG = 32

type WatchRow = z.output<typeof WatchEventSchema>

/** One change as a stream sends it: the hub's sequence number is the event's id. */
interface Change {
  seq: number
  row: WatchRow
}

/** One open stream. Kept small: the hub may hold thousands. */
interface Subscriber {
  writer: WritableStreamDefaultWriter<Uint8Array>
  /** Whose stream it is, counted in `caps` while open. */
  principal: string
  targetKind: ProbeTargetKind | null
  targetId: string | null
  intervalMs: number
  closesAt: number
  /** Changes waiting for the next write, in order; null while nothing waits. */
  pending: Change[] | null
  /** The next write's timer, set while changes wait. */
  timer: ReturnType<typeof setTimeout> | null
  /** False while the snapshot is being read: changes wait in `pending` until it is written. */
  ready: boolean
}

const encoder = new TextEncoder()

function rowOf(change: WatchChange): WatchRow {
  const { id, name, state, enabled, lastChangedAt } = change
  return { id, name, state, enabled, lastChangedAt }
}

function matches(sub: Subscriber, targetKind: string, targetId: string | null): boolean {
  return (
    (sub.targetKind === null || sub.targetKind === targetKind) &&
    (sub.targetId === null || sub.targetId === targetId)
  )
}

function event(change: Change): string {
  return `id: ${change.seq}\ndata: ${JSON.stringify(change.row)}\n\n`
}

/**
 * The opening snapshot: one event per probe. Only the last carries the id (the sequence the stream subscribed
 * at), so a stream cut inside the snapshot resumes with a fresh one; with no probe, a bare `id:` sets it.
 */
function snapshot(rows: WatchRow[], since: number): string {
  const events = rows.map((row) => `data: ${JSON.stringify(row)}\n\n`)
  const last = events.length - 1
  if (last < 0) return `id: ${since}\n\n`
  events[last] = `id: ${since}\n${events[last]}`
  return events.join('')
}

/**
 * Fans probe changes out to the open probes.watch streams. One instance (`WATCH_HUB_NAME`): each ProbeMonitor
 * publishes its probe's (state, enabled, lastChangedAt) changes here after writing them to D1. Every change gets
 * the next sequence number, which is the streams' event id, and stays in a ring of the recent changes so a
 * reopened stream can resume after its Last-Event-ID.
 */
export class WatchHub extends DurableObject<Env> {
  private readonly subscribers = new Set<Subscriber>()
  private readonly caps = new WatchCaps()
  private seq: number
  private ticker: ReturnType<typeof setInterval> | null = null

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env)
    ctx.storage.sql.exec(
      'CREATE TABLE IF NOT EXISTS changes (seq INTEGER PRIMARY KEY, target_kind TEXT NOT NULL, target_id TEXT, row TEXT NOT NULL)',
    )
    ctx.storage.sql.exec(
      'CREATE TABLE IF NOT EXISTS latest (probe_id TEXT PRIMARY KEY, state TEXT NOT NULL, enabled INTEGER NOT NULL, last_changed_at TEXT)',
    )
    this.seq =
      ctx.storage.sql.exec<{ seq: number | null }>('SELECT max(seq) AS seq FROM changes').one().seq ?? 0
  }

  /** Takes a probe's change; one that repeats the probe's last known (state, enabled, lastChangedAt) is ignored. */
  async publish(change: WatchChange): Promise<void> {
    const sql = this.ctx.storage.sql
    // The check and its write in one statement: the row changes only when the watched triple does.
    const upsert = sql.exec(
      `INSERT INTO latest (probe_id, state, enabled, last_changed_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (probe_id) DO UPDATE SET
         state = excluded.state, enabled = excluded.enabled, last_changed_at = excluded.last_changed_at
       WHERE state IS NOT excluded.state OR enabled IS NOT excluded.enabled
         OR last_changed_at IS NOT excluded.last_changed_at`,
      change.id,
      change.state,
      change.enabled ? 1 : 0,
      change.lastChangedAt,
    )
    upsert.toArray()
    if (upsert.rowsWritten === 0) return
    const seq = this.seq + 1
    const row = rowOf(change)
    sql.exec(
      'INSERT INTO changes (seq, target_kind, target_id, row) VALUES (?, ?, ?, ?)',
      seq,
      change.targetKind,
      change.targetId,
      JSON.stringify(row),
    )
    sql.exec('DELETE FROM changes WHERE seq <= ?', seq - WATCH_RING_SIZE)
    this.seq = seq
    for (const sub of this.subscribers) {
      if (matches(sub, change.targetKind, change.targetId)) this.enqueue(sub, { seq, row })
    }
  }

  /** How many streams are open (for the benchmark and the tests). */
  async streams(): Promise<number> {
    return this.subscribers.size
  }

  /**
   * Opens a stream for a `watchRequest`: subscribed before anything is read, so no change can fall between the
   * snapshot and the events after it. A fresh stream opens with one event per current row from D1, identified
   * by the sequence as it was when the stream subscribed (every change up to it is in D1 already, as monitors
   * write D1 before they publish); a resumed one gets each change after its Last-Event-ID from the ring instead.
   */
  override async fetch(request: Request): Promise<Response> {
    const open = readWatchRequest(request)
    const refused = this.caps.admit(open.principal)
    if (refused) return capReachedResponse(refused)
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>()
    const sub: Subscriber = {
      writer: writable.getWriter(),
      principal: open.principal,
      targetKind: open.targetKind,
      targetId: open.targetId,
      intervalMs: open.intervalMs,
      closesAt: Date.now() + WATCH_STREAM_LIFETIME_MS,
      pending: null,
      timer: null,
      ready: false,
    }
    this.subscribers.add(sub)
    // A reader that left (a closed tab, a reload) frees its place at once, not at the next keepalive.
    sub.writer.closed.catch(() => this.drop(sub))
    this.ticker ??= setInterval(() => this.sweep(Date.now()), WATCH_KEEPALIVE_MS)
    this.write(sub, `retry: ${WATCH_RETRY_MS}\n\n`)
    const since = this.seq
    const missed = this.missedSince(open.lastEventId, sub)
    if (missed) {
      if (missed.length > 0) this.write(sub, missed.map(event).join(''))
    } else {
      try {
        this.write(sub, snapshot(await this.currentRows(open), since))
      } catch (error) {
        this.drop(sub)
        throw error
      }
    }
    sub.ready = true
    if (sub.pending) this.schedule(sub)
    return new Response(readable, { headers: { 'content-type': 'text/event-stream' } })
  }

  /** Writes a keepalive to every stream (a failed write drops it) and ends the streams past their lifetime. */
  sweep(now: number): void {
    for (const sub of this.subscribers) {
      if (sub.closesAt <= now) this.end(sub)
      else this.write(sub, ': keepalive\n\n')
    }
  }

  private async currentRows(open: WatchOpen): Promise<WatchRow[]> {
    const rows = await db(this.env.DB)
      .select({
        id: probes.id,
        name: probes.name,
        state: probes.state,
        enabled: probes.enabled,
        lastChangedAt: probes.lastChangedAt,
      })
      .from(probes)
      .where(
        and(
          isNull(probes.archivedAt),
          open.targetKind === null ? undefined : eq(probes.targetKind, open.targetKind),
          open.targetId === null ? undefined : eq(probes.targetId, open.targetId),
        ),
      )
      .orderBy(desc(probes.createdAt), desc(probes.id))
    return rows.map((row) => ({ ...row, lastChangedAt: row.lastChangedAt?.toISOString() ?? null }))
  }

  /** Every matching change after `lastEventId`, in order; null when it is absent, unknown or too old. */
  private missedSince(lastEventId: string | null, sub: Subscriber): Change[] | null {
    if (lastEventId === null || !/^\d{1,15}$/.test(lastEventId)) return null
    const after = Number(lastEventId)
    if (after > this.seq || after < this.seq - WATCH_RING_SIZE) return null
    const changes = this.ctx.storage.sql.exec<{
      seq: number
      target_kind: string
      target_id: string | null
      row: string
    }>('SELECT seq, target_kind, target_id, row FROM changes WHERE seq > ? ORDER BY seq', after)
    const missed: Change[] = []
    for (const change of changes) {
      if (matches(sub, change.target_kind, change.target_id))
        missed.push({ seq: change.seq, row: JSON.parse(change.row) as WatchRow })
    }
    return missed
  }

  private enqueue(sub: Subscriber, change: Change): void {
    sub.pending ??= []
    sub.pending.push(change)
    if (sub.ready) this.schedule(sub)
  }

  // Pacing, not merging: the first change opens a window of intervalMs, then every change of it is written, each
  // as its own event, in one write.
  private schedule(sub: Subscriber): void {
    sub.timer ??= setTimeout(() => this.flush(sub), sub.intervalMs)
  }

  private flush(sub: Subscriber): void {
    sub.timer = null
    const changes = sub.pending
    sub.pending = null
    if (changes) this.write(sub, changes.map(event).join(''))
  }

  private write(sub: Subscriber, text: string): void {
    const backlog = sub.writer.desiredSize
    if (backlog !== null && backlog < -MAX_BACKLOG) {
      this.drop(sub)
      return
    }
    sub.writer.write(encoder.encode(text)).catch(() => this.drop(sub))
  }

  /** A stream whose reader is gone or stuck: forgotten at once. */
  private drop(sub: Subscriber): void {
    if (!this.forget(sub)) return
    sub.writer.abort().catch(() => undefined)
  }

  /** A stream past its lifetime: ended cleanly after what was written; the reader reopens with Last-Event-ID. */
  private end(sub: Subscriber): void {
    if (!this.forget(sub)) return
    sub.writer.close().catch(() => undefined)
  }

  private forget(sub: Subscriber): boolean {
    if (!this.subscribers.delete(sub)) return false
    this.caps.release(sub.principal)
    if (sub.timer) clearTimeout(sub.timer)
    if (this.subscribers.size === 0 && this.ticker) {
      clearInterval(this.ticker)
      this.ticker = null
    }
    return true
  }
}
