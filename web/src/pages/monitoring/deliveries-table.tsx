import { when } from './format'
import type { Probe } from './probe-types'

/** The last notification per target (the webhook, each email address). */
export function DeliveriesTable({ deliveries }: { deliveries: Probe['deliveries'] }) {
  return (
    <section aria-labelledby="deliveries-heading">
      <h2 id="deliveries-heading">Notification deliveries</h2>
      {deliveries.length === 0 ? (
        <p>Nothing notified yet.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">Target</th>
              <th scope="col">Event</th>
              <th scope="col">Status</th>
              <th scope="col">Attempts</th>
              <th scope="col">Last attempt</th>
              <th scope="col">Last error</th>
            </tr>
          </thead>
          <tbody>
            {deliveries.map((delivery) => (
              <tr key={delivery.target}>
                <td>
                  <code>{delivery.target}</code>
                </td>
                <td>{delivery.event}</td>
                <td>{delivery.status}</td>
                <td>{delivery.attempts}</td>
                <td>{delivery.lastAttemptAt ? when(delivery.lastAttemptAt) : '—'}</td>
                <td>{delivery.lastError ?? ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  )
}
