/** The latency percentiles a closed rollup carries. */
export interface Percentiles {
  latencyP50Ms: number | null
  latencyP95Ms: number | null
  latencyP99Ms: number | null
}

export const NO_PERCENTILES: Percentiles = { latencyP50Ms: null, latencyP95Ms: null, latencyP99Ms: null }

/**
 * Exact nearest-rank percentiles of a bucket's timed checks, sorted ascending: the p-th is the value at rank
 * ⌈p/100 × n⌉ (1-based), so every figure is a latency that was measured. None for a bucket without timed checks.
 */
export function percentilesOf(sorted: readonly number[]): Percentiles {
  if (sorted.length === 0) return NO_PERCENTILES
  const at = (p: number) => sorted[Math.max(1, Math.ceil((p / 100) * sorted.length)) - 1] ?? null
  return { latencyP50Ms: at(50), latencyP95Ms: at(95), latencyP99Ms: at(99) }
}
