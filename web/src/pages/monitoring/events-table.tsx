import { type FirstWait, StateBadge } from '../../components/state-badge'
import { when } from './format'
import type { Probe } from './probe-types'

/** `probes.get` answers the latest 100 events: a shorter list reaches back to the probe's first check. */
const EVENTS_LISTED = 100

/**
 * The probe's state changes, newest first (as `probes.get` answers them). The first check's change reads from what
 * the probe waited for, not from `paused`: the oldest event of a complete list that starts at `paused`.
 */
export function EventsTable({ events, firstWait }: { events: Probe['events']; firstWait: FirstWait }) {
  const complete = events.length < EVENTS_LISTED
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
            {events.map((event, index) => (
              <tr key={`${event.at}-${event.state}`}>
                <td>
                  <time dateTime={event.at}>{when(event.at)}</time>
                </td>
                <td>
                  {event.previousState ? (
                    <StateBadge
                      state={event.previousState}
                      waiting={complete && index === events.length - 1 ? firstWait : undefined}
                    />
                  ) : (
                    '—'
                  )}
                </td>
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
