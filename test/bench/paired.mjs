// How every bench row is read against its no-op. This machine's throughput drifts by a quarter and more within a
// minute (a run of the panel's no-op alone read 763 → 1,128 req/s over one round), so a path measured tens of
// seconds away from its no-op carries that drift in its ratio. Each path's time is cut into slices, each right
// after a no-op slice of the same length, and the path's figure is the median of those pairs' ratios.

/** Slices per path per round: 10 s per path become five pairs of 2 s. */
export const SLICES = 5

export const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

const mean = (values) => values.reduce((sum, value) => sum + value, 0) / values.length

/**
 * `target` for `seconds` in SLICES slices, each after a `noop` slice as long: the path's mean requests/s, the
 * median p99 of its slices, the no-op's mean requests/s, the median of the slice pairs' ratios and the failures.
 */
export async function pairedSlices(run, noop, target, seconds) {
  const pairs = []
  for (let s = 0; s < SLICES; s++) {
    const base = await run(noop, seconds / SLICES)
    pairs.push({ base, measured: await run(target, seconds / SLICES) })
  }
  return {
    rps: mean(pairs.map((pair) => pair.measured.requests.average)),
    p99: median(pairs.map((pair) => pair.measured.latency.p99)),
    noopRps: mean(pairs.map((pair) => pair.base.requests.average)),
    ratio: median(pairs.map((pair) => pair.measured.requests.average / pair.base.requests.average)),
    failures: pairs.reduce((sum, pair) => sum + pair.measured.errors + pair.measured.non2xx, 0),
  }
}
