import { useQueries } from '@tanstack/react-query'
import { api, errorText } from '../../api'
import { duration, percent } from './format'

const HOUR = 3_600_000
const WINDOWS = [
  { days: 1, label: '24 h' },
  { days: 7, label: '7 d' },
  { days: 30, label: '30 d' },
  { days: 90, label: '90 d' },
] as const

/** The window of `days` ending at the next whole hour: 90 days then start within the history kept. */
function windowOf(days: number, now: number) {
  const to = (Math.floor(now / HOUR) + 1) * HOUR
  return { from: new Date(to - days * 24 * HOUR).toISOString(), to: new Date(to).toISOString() }
}

/** The probe's availability over the last day, week, month and 90 days, and the 90 days per day as CSV. */
export function AvailabilitySection({ probeId }: { probeId: string }) {
  const figures = useQueries({
    queries: WINDOWS.map((window) => ({
      queryKey: ['probes.availability', probeId, window.days],
      queryFn: () => api.probes.availability({ id: probeId, ...windowOf(window.days, Date.now()) }),
    })),
  })
  const csv = windowOf(90, Date.now())
  const csvUrl = `/api/v1/probes/${encodeURIComponent(probeId)}/availability.csv?from=${encodeURIComponent(csv.from)}&to=${encodeURIComponent(csv.to)}`
  return (
    <section aria-labelledby="availability-heading">
      <h2 id="availability-heading">Availability</h2>
      <table>
        <thead>
          <tr>
            <th scope="col">Last</th>
            <th scope="col">Uptime</th>
            <th scope="col">Downtime</th>
            <th scope="col">Incidents</th>
            <th scope="col">Longest</th>
            <th scope="col">Maintenance</th>
            <th scope="col">Checks</th>
          </tr>
        </thead>
        <tbody>
          {WINDOWS.map((window, index) => {
            const query = figures[index]
            const data = query?.data
            return (
              <tr key={window.days} data-testid={`availability-${window.days}d`}>
                <th scope="row">{window.label}</th>
                {data ? (
                  <>
                    <td>{percent(data.uptimeRatio)}</td>
                    <td>{duration(data.downtimeSeconds)}</td>
                    <td>{data.incidents}</td>
                    <td>{duration(data.longestIncidentSeconds)}</td>
                    <td>{duration(data.maintenanceSeconds)}</td>
                    <td>{data.checks}</td>
                  </>
                ) : (
                  <td colSpan={6} className={query?.isError ? undefined : 'loading'}>
                    {query?.isError ? errorText(query.error) : 'Loading…'}
                  </td>
                )}
              </tr>
            )
          })}
        </tbody>
      </table>
      <p>
        Down and flapping count as down; maintenance windows covering the probe are left out.{' '}
        <a href={csvUrl} download>
          The 90 days per day (CSV)
        </a>
      </p>
    </section>
  )
}
