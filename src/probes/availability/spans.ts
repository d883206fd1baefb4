/** A stretch of time [start, end), in whole seconds since the epoch. */
export interface Span {
  start: number
  end: number
}

export const toSeconds = (ms: number) => Math.floor(ms / 1000)

/** The spans merged into disjoint ones, in order (adjoining ones join). */
export function union(spans: readonly Span[]): Span[] {
  const sorted = spans.filter((span) => span.end > span.start).sort((a, b) => a.start - b.start)
  const out: Span[] = []
  for (const span of sorted) {
    const last = out.at(-1)
    if (last && span.start <= last.end) last.end = Math.max(last.end, span.end)
    else out.push({ ...span })
  }
  return out
}

/** What of `span` no span of `cover` (disjoint, in order) holds. */
export function subtract(span: Span, cover: readonly Span[]): Span[] {
  const out: Span[] = []
  let start = span.start
  for (const hole of cover) {
    if (hole.end <= start) continue
    if (hole.start >= span.end) break
    if (hole.start > start) out.push({ start, end: hole.start })
    start = Math.max(start, hole.end)
  }
  if (start < span.end) out.push({ start, end: span.end })
  return out
}

/** Seconds of `spans` inside [from, to). */
export function overlap(spans: readonly Span[], from: number, to: number): number {
  let total = 0
  for (const span of spans) total += Math.max(0, Math.min(span.end, to) - Math.max(span.start, from))
  return total
}
