import { z } from '@hono/zod-openapi'
import type { D1Handle } from '../../db/client'
import { notFound } from '../../rpc/errors'
import { type RenderedOutput, serializeOutput } from '../../rpc/rendered'
import type { ProbeMonitorRpc } from '../monitor/rpc'
import { type ProbeResultRow, rollupToRow } from '../rows'
import { ProbeResultRowSchema } from '../schemas'
import { mergeRaw, mergeRollups } from './merge'
import { type Granularity, readProbeHistory, windowStart } from './read'

const HOUR_MS = 3_600_000

/**
 * How long an isolate serves a serialised history without reading D1 and the probe's monitor: a dashboard
 * polling a long window no longer reads and serialises it on every poll.
 */
export const HISTORY_ISOLATE_TTL_MS = 5_000

/** Serialised answers kept at most, in bytes (2,160 hourly rows are about 0.5 MB); the oldest go first. */
const MAX_CACHED_BYTES = 16 * 1024 * 1024

export const HistoryOutputSchema = z.array(ProbeResultRowSchema)

interface Cached {
  rendered: RenderedOutput<ProbeResultRow[]>
  until: number
}

const cache = new Map<string, Cached>()
let cachedBytes = 0

function forget(key: string): void {
  const entry = cache.get(key)
  if (!entry) return
  cache.delete(key)
  cachedBytes -= entry.rendered.json.length
}

function remember(key: string, rendered: RenderedOutput<ProbeResultRow[]>, until: number): void {
  forget(key)
  if (rendered.json.length > MAX_CACHED_BYTES) return
  for (const oldest of cache.keys()) {
    if (cachedBytes + rendered.json.length <= MAX_CACHED_BYTES) break
    forget(oldest)
  }
  cache.set(key, { rendered, until })
  cachedBytes += rendered.json.length
}

/** What the history reads of a probe's monitor (its raw results, and the rollups D1 lacks). */
export type HistoryMonitor = Pick<ProbeMonitorRpc, 'rawResults' | 'unwrittenRollups'>

export interface HistoryInput {
  id: string
  granularity: Granularity
  hours: number
  location?: string | undefined
}

/** The window read from D1 (the probe and its rows, one round trip) and from the probe's monitor (one call), at once. */
async function readWindow(
  d1: D1Handle,
  monitor: HistoryMonitor,
  input: HistoryInput,
  now: number,
): Promise<ProbeResultRow[] | null> {
  const { id, granularity, hours } = input
  const location = input.location ?? null
  if (granularity === 'raw') {
    const [stored, own] = await Promise.all([
      readProbeHistory(d1, id, granularity, hours, now),
      monitor.rawResults(now - hours * HOUR_MS, now, location),
    ])
    return stored && 'raw' in stored ? mergeRaw(id, stored.raw, own, location) : null
  }
  const [stored, own] = await Promise.all([
    readProbeHistory(d1, id, granularity, hours, now),
    monitor.unwrittenRollups(granularity, windowStart(granularity, hours, now), now),
  ])
  if (!stored || !('rollups' in stored)) return null
  return mergeRollups(id, stored.rollups, own).map(rollupToRow)
}

/**
 * A probe's history window, serialised: from isolate memory while fresh, else read (D1 and the probe's monitor at
 * once), checked against the output schema and kept. 404 for an unknown probe, which is never kept.
 */
export async function renderedHistory(
  d1: D1Handle,
  monitor: HistoryMonitor,
  input: HistoryInput,
  now = Date.now(),
): Promise<RenderedOutput<ProbeResultRow[]>> {
  const key = `${input.id} ${input.granularity} ${input.hours} ${input.location ?? ''}`
  const hit = cache.get(key)
  if (hit && hit.until > now) return hit.rendered
  const rows = await readWindow(d1, monitor, input, now)
  if (!rows) {
    forget(key)
    throw notFound(`probe ${input.id}`)
  }
  const rendered = serializeOutput(HistoryOutputSchema, rows)
  remember(key, rendered, now + HISTORY_ISOLATE_TTL_MS)
  return rendered
}
