import { RAW_HISTORY_LIMIT, type StoredResult } from '../monitor/results-store'
import type { HistoryRollup } from '../monitor/rpc'
import { type ProbeResultRow, type RollupRecord, resultToRow } from '../rows'

/** A raw result the monitor keeps, as a history row. */
function storedToRow(probeId: string, r: StoredResult): ProbeResultRow {
  return {
    ...resultToRow({
      probe_id: probeId,
      kind: 'raw',
      at: r.at,
      state: r.outcome,
      previous_state: null,
      latency_ms: r.latencyMs,
      detail: r.detail,
    }),
    location: r.location,
  }
}

/**
 * The raw history: the monitor's results (newest first) with D1's raw rows of the window (oldest first: a heartbeat
 * ledger's plain pings, and rows written before results moved out of D1, until the prune takes them), the latest
 * RAW_HISTORY_LIMIT of both, oldest first. With a location, the monitor's alone (D1's rows carry none).
 */
export function mergeRaw(
  probeId: string,
  fromD1: ProbeResultRow[],
  fromMonitor: StoredResult[],
  location: string | null,
): ProbeResultRow[] {
  const monitor = fromMonitor.map((r) => storedToRow(probeId, r)).reverse()
  if (location !== null) return monitor
  if (fromD1.length === 0) return monitor
  const rows = [...fromD1, ...monitor].sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0))
  return rows.slice(-RAW_HISTORY_LIMIT)
}

/**
 * D1's rollup records with the part only the monitor holds added in: counts not yet written (the open hour or
 * day, a late result) add to the bucket's, and a bucket that closed since the last write takes the monitor's
 * exact percentiles. Oldest first.
 */
export function mergeRollups(
  probeId: string,
  fromD1: RollupRecord[],
  fromMonitor: HistoryRollup[],
): RollupRecord[] {
  if (fromMonitor.length === 0) return fromD1
  const byStart = new Map(fromD1.map((record) => [record.bucket_start, record]))
  for (const r of fromMonitor) {
    const record = byStart.get(r.bucketStart)
    const max = [record?.latency_max_ms ?? null, r.latencyMaxMs].filter((v): v is number => v !== null)
    const merged: RollupRecord = {
      probe_id: probeId,
      granularity: r.granularity,
      bucket_start: r.bucketStart,
      up: (record?.up ?? 0) + r.up,
      down: (record?.down ?? 0) + r.down,
      degraded: (record?.degraded ?? 0) + r.degraded,
      latency_sum_ms: (record?.latency_sum_ms ?? 0) + r.latencySumMs,
      latency_count: (record?.latency_count ?? 0) + r.latencyCount,
      latency_max_ms: max.length > 0 ? Math.max(...max) : null,
      latency_p50_ms: r.closed ? r.latencyP50Ms : (record?.latency_p50_ms ?? null),
      latency_p95_ms: r.closed ? r.latencyP95Ms : (record?.latency_p95_ms ?? null),
      latency_p99_ms: r.closed ? r.latencyP99Ms : (record?.latency_p99_ms ?? null),
    }
    if (merged.up + merged.down + merged.degraded > 0) byStart.set(r.bucketStart, merged)
  }
  return [...byStart.values()].sort((a, b) => a.bucket_start - b.bucket_start)
}
