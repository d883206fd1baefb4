import uPlot from 'uplot'
import 'uplot/dist/uPlot.min.css'

/** One bucket of a probe's history: availability in percent and mean latency in milliseconds. */
export interface HistoryPoint {
  at: number
  upPercent: number
  latencyMs: number | null
}

/** The time span the x axis shows, in epoch milliseconds (one lone point still sits in its window). */
export interface HistoryWindow {
  from: number
  to: number
}

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
  ]
  const chart = new uPlot(
    {
      width: Math.max(320, element.clientWidth),
      height: 240,
      scales: {
        x: { time: true, range: [span.from / 1000, span.to / 1000] },
        pct: { range: [0, 100] },
        ms: { auto: true },
      },
      series: [
        {},
        { label: 'Up %', scale: 'pct', stroke: '#1a7f37', width: 2, points: { show: points.length < 3 } },
        {
          label: 'Latency ms',
          scale: 'ms',
          stroke: '#0b5cad',
          width: 1,
          points: { show: points.length < 3 },
        },
      ],
      axes: [
        {},
        { scale: 'pct', label: 'Up %' },
        { scale: 'ms', side: 1, label: 'ms', grid: { show: false } },
      ],
    },
    data,
    element,
  )
  return () => chart.destroy()
}
