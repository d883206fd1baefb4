import { useEffect, useRef, useState } from 'react'
import type { HistoryPoint, HistoryWindow } from './uplot-chart'

/**
 * Availability and latency over time with uPlot, loaded on first use so the first page stays small.
 * `span` is the window the time axis shows; `summary` is the chart's text alternative.
 */
export function HistoryChart({
  points,
  span,
  summary,
}: {
  points: readonly HistoryPoint[]
  span: HistoryWindow
  summary: string
}) {
  const box = useRef<HTMLDivElement>(null)
  const [failed, setFailed] = useState<string | null>(null)
  // The chart is drawn at its box's width: drawn again when that changes (a rotated phone, a resized window).
  const [width, setWidth] = useState(0)
  useEffect(() => {
    const element = box.current
    if (!element) return
    const observer = new ResizeObserver(() => setWidth(element.clientWidth))
    observer.observe(element)
    return () => observer.disconnect()
  }, [])
  useEffect(() => {
    const element = box.current
    if (!element || points.length === 0 || width === 0) return
    let dispose: (() => void) | null = null
    let cancelled = false
    import('./uplot-chart')
      .then(({ drawHistory }) => {
        if (!cancelled) dispose = drawHistory(element, points, span)
      })
      .catch((error: unknown) => setFailed(String(error)))
    return () => {
      cancelled = true
      dispose?.()
    }
  }, [points, span, width])
  return (
    <figure className="chart">
      <div ref={box} role="img" aria-label={summary} />
      <figcaption>{failed ? `The chart could not load: ${failed}` : summary}</figcaption>
    </figure>
  )
}
