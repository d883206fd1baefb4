import { z } from '@hono/zod-openapi'
import type { D1Handle } from '../../db/client'
import { notFound } from '../../rpc/errors'
import { type RenderedOutput, serializeOutput } from '../../rpc/rendered'
import type { ProbeResultRow } from '../rows'
import { ProbeResultRowSchema } from '../schemas'
import { type Granularity, readProbeHistory } from './read'

/**
 * How long an isolate serves a serialised history without reading D1. Checks reach the history tables up to a
 * minute after they ran (the monitors and heartbeat ledgers flush once a minute), so an answer is at most this
 * much older again: a dashboard polling a long window no longer reads and serialises it on every poll.
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

/**
 * A probe's history window, serialised: from isolate memory while fresh, else read (the probe and its rows in one
 * D1 round trip), checked against the output schema and kept. 404 for an unknown probe, which is never kept.
 */
export async function renderedHistory(
  d1: D1Handle,
  input: { id: string; granularity: Granularity; hours: number },
  now = Date.now(),
): Promise<RenderedOutput<ProbeResultRow[]>> {
  const key = `${input.id} ${input.granularity} ${input.hours}`
  const hit = cache.get(key)
  if (hit && hit.until > now) return hit.rendered
  const rows = await readProbeHistory(d1, input.id, input.granularity, input.hours, now)
  if (!rows) {
    forget(key)
    throw notFound(`probe ${input.id}`)
  }
  const rendered = serializeOutput(HistoryOutputSchema, rows)
  remember(key, rendered, now + HISTORY_ISOLATE_TTL_MS)
  return rendered
}
