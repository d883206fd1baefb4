import { useQuery } from '@tanstack/react-query'
import { useMemo, useState } from 'react'
import { api, errorText } from '../../api'
import { HistoryChart } from '../../components/history-chart'
import { percent } from './format'

const RANGES = [
  { hours: 24, label: '24 h' },
  { hours: 24 * 7, label: '7 d' },
  { hours: 24 * 30, label: '30 d' },
  { hours: 24 * 90, label: '90 d' },
] as const

/** The hourly availability and latency of one probe over a chosen range. */
export function HistorySection({ probeId }: { probeId: string }) {
  const [hours, setHours] = useState<number>(24)
  const history = useQuery({
    queryKey: ['probes.history', probeId, hours],
    queryFn: () => api.probes.history({ id: probeId, granularity: 'hourly', hours }),
  })
  // The window ends at the hour being filled; it moves when the data is read again.
  const span = useMemo(() => {
    const to = (Math.floor(history.dataUpdatedAt / 3_600_000) + 1) * 3_600_000
    return { from: to - hours * 3_600_000, to }
  }, [history.dataUpdatedAt, hours])
  const points = useMemo(
    () =>
      (history.data ?? []).map((row) => ({
        at: Date.parse(row.at),
        upPercent: row.upRatio / 100,
        latencyMs: row.latencyMs,
        p50Ms: row.latencyP50Ms,
        p95Ms: row.latencyP95Ms,
        p99Ms: row.latencyP99Ms,
      })),
    [history.data],
  )
  const checks = (history.data ?? []).reduce((sum, row) => sum + row.checks, 0)
  const good = (history.data ?? []).reduce((sum, row) => sum + (row.upRatio * row.checks) / 10000, 0)
  const range = RANGES.find((option) => option.hours === hours)?.label ?? `${hours} h`
  const summary =
    checks === 0
      ? `No checks recorded in the last ${range}.`
      : `Up ${percent(Math.round((good / checks) * 10000))} of ${checks} ${checks === 1 ? 'check' : 'checks'} in the last ${range}, hourly.`
  return (
    <section aria-labelledby="history-heading">
      <h2 id="history-heading">History</h2>
      <fieldset className="range">
        <legend>Range</legend>
        {RANGES.map((option) => (
          <label key={option.hours} className="check">
            <input
              type="radio"
              name="range"
              value={option.hours}
              checked={hours === option.hours}
              onChange={() => setHours(option.hours)}
            />
            {option.label}
          </label>
        ))}
      </fieldset>
      {history.isError ? (
        <p role="alert">{errorText(history.error)}</p>
      ) : history.isPending ? (
        <p className="loading">Loading history…</p>
      ) : points.length === 0 ? (
        <p>{summary} Rollups are written up to a minute after each check.</p>
      ) : (
        <HistoryChart points={points} span={span} summary={summary} />
      )}
    </section>
  )
}
