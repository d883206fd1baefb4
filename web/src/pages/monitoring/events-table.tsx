import { StateBadge } from '../../components/state-badge'
import { when } from './format'
import type { Probe } from './probe-types'

/** The probe's state changes, newest first (as `probes.get` answers them). */
export function EventsTable({ events }: { events: Probe['events'] }) {
  return (
    <section aria-labelledby="events-heading">
      <h2 id="events-heading">Events</h2>
      {events.length === 0 ? (
        <p>No state changes yet.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">From</th>
              <th scope="col">To</th>
              <th scope="col">Detail</th>
            </tr>
          </thead>
          <tbody>
            {events.map((event) => (
              <tr key={`${event.at}-${event.state}`}>
                <td>
                  <time dateTime={event.at}>{when(event.at)}</time>
                </td>
                <td>{event.previousState ? <StateBadge state={event.previousState} /> : '—'}</td>
                <td>{event.state ? <StateBadge state={event.state} /> : '—'}</td>
                <td>{event.detail ?? ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  )
}
