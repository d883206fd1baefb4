// A rollup's latency histogram: how many of its timed checks fell in each bucket, so /metrics can expose check
// latency as a Prometheus histogram. Stored as a JSON array of counts (not cumulative), one per bound below; a
// check slower than the last bound counts only in `latencyCount` (the +Inf bucket).

/** The upper bounds (ms, inclusive) of the buckets: the usual Prometheus ladder from 0.1 s to 10 s. */
export const LATENCY_BOUNDS_MS = [100, 250, 500, 1000, 2500, 5000, 10_000] as const

/** `counts` (null: none yet) with one more timed check of `latencyMs`. */
export function addLatency(counts: readonly number[] | null, latencyMs: number): number[] {
  const index = LATENCY_BOUNDS_MS.findIndex((bound) => latencyMs <= bound)
  return LATENCY_BOUNDS_MS.map((_, i) => (counts?.[i] ?? 0) + (i === index ? 1 : 0))
}

/** The counts of a stored array; zeros when none was stored (a rollup written before the buckets existed). */
export function parseLatencyBuckets(stored: string | null): number[] {
  const parsed: unknown = stored === null ? null : JSON.parse(stored)
  return LATENCY_BOUNDS_MS.map((_, i) =>
    Array.isArray(parsed) && typeof parsed[i] === 'number' ? parsed[i] : 0,
  )
}

/** SQL adding two stored arrays element by element, for the upsert that adds a flush's counts to a rollup row. */
export function addLatencyBucketsSql(left: string, right: string): string {
  const items = LATENCY_BOUNDS_MS.map(
    (_, i) =>
      `coalesce(json_extract(${left}, '$[${i}]'), 0) + coalesce(json_extract(${right}, '$[${i}]'), 0)`,
  )
  return `CASE WHEN ${right} IS NULL THEN ${left} WHEN ${left} IS NULL THEN ${right} ELSE json_array(${items.join(', ')}) END`
}
