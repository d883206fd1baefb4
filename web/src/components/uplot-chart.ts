import uPlot from 'uplot'
import 'uplot/dist/uPlot.min.css'

/** One bucket of a probe's history: availability in percent, and its latency in milliseconds (mean, percentiles). */
export interface HistoryPoint {
  at: number
  upPercent: number
  latencyMs: number | null
  p50Ms: number | null
  p95Ms: number | null
  p99Ms: number | null
}

/** The latency lines beside the mean: each percentile's label, field and colour. */
const PERCENTILES = [
  ['p50 ms', 'p50Ms', '#6f42c1'],
  ['p95 ms', 'p95Ms', '#bc4c00'],
  ['p99 ms', 'p99Ms', '#cf222e'],
] as const

/** The time span the x axis shows, in epoch milliseconds (one lone point still sits in its window). */
export interface HistoryWindow {
  from: number
  to: number
}

const pad = (n: number) => String(n).padStart(2, '0')

/**
 * A tick on the time axis in UTC like the rest of the panel: `2026-11-27` over `22:00`, or the date alone when
 * every tick falls on midnight (the 30 and 90 day windows).
 */
export function timeTicks(splits: readonly number[]): string[] {
  const dates = splits.map((seconds) => new Date(seconds * 1000))
  const midnights = dates.every((date) => date.getUTCHours() === 0 && date.getUTCMinutes() === 0)
  return dates.map((date) => {
    const day = date.toISOString().slice(0, 10)
    return midnights ? day : `${day}\n${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}`
  })
}

/** The hovered moment in the legend: `2026-11-27 22:00 UTC`. */
const legendTime = (seconds: number | null) =>
  seconds === null ? '' : `${new Date(seconds * 1000).toISOString().slice(0, 16).replace('T', ' ')} UTC`

/** Draws the points into `element` at its width; returns the function that removes the chart. */
export function drawHistory(
  element: HTMLElement,
  points: readonly HistoryPoint[],
  span: HistoryWindow,
): () => void {
  const data: uPlot.AlignedData = [
    points.map((point) => point.at / 1000),
    points.map((point) => point.upPercent),
    points.map((point) => point.latencyMs),
    ...PERCENTILES.map(([, field]) => points.map((point) => point[field])),
  ]
  const chart = new uPlot(
    {
      width: Math.max(320, element.clientWidth),
      height: 240,
      // Ticks fall on UTC hours and days, not the browser's zone.
      tzDate: (seconds) => uPlot.tzDate(new Date(seconds * 1000), 'Etc/UTC'),
      scales: {
        x: { time: true, range: [span.from / 1000, span.to / 1000] },
        pct: { range: [0, 100] },
        ms: { auto: true },
      },
      series: [
        { label: 'Time (UTC)', value: (_chart, seconds) => legendTime(seconds) },
        { label: 'Up %', scale: 'pct', stroke: '#1a7f37', width: 2, points: { show: points.length < 3 } },
        {
          label: 'Latency ms',
          scale: 'ms',
          stroke: '#0b5cad',
          width: 1,
          points: { show: points.length < 3 },
        },
        ...PERCENTILES.map(([label, , stroke]) => ({
          label,
          scale: 'ms',
          stroke,
          width: 1,
          dash: [4, 3],
          points: { show: points.length < 3 },
        })),
      ],
      axes: [
        { label: 'UTC', space: 90, size: 56, values: (_chart, splits) => timeTicks(splits) },
        { scale: 'pct', label: 'Up %' },
        { scale: 'ms', side: 1, label: 'ms', grid: { show: false } },
      ],
    },
    data,
    element,
  )
  return () => chart.destroy()
}
