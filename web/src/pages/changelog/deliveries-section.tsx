import { useState } from 'react'
import { api, errorText } from '../../api'
import { LoadMore } from '../../components/load-more'
import { TimeStamp } from '../../components/time-stamp'
import { useArrayPages } from '../../paged-list'
import type { Webhook } from './release-types'

/** The deliveries, newest first, of every target or the one chosen, a page at a time. */
export function DeliveriesSection({ webhooks }: { webhooks: readonly Webhook[] }) {
  const [targetId, setTargetId] = useState('')
  const deliveries = useArrayPages(
    ['changelog.webhooks.deliveries', targetId],
    (page) => api.changelog.webhooks.deliveries(targetId === '' ? page : { ...page, targetId }),
    { staleTime: 0 },
  )
  const urlOf = new Map(webhooks.map((webhook) => [webhook.id, webhook.url]))
  return (
    <section aria-labelledby="deliveries-heading">
      <h2 id="deliveries-heading">Recent deliveries</h2>
      <label className="inline">
        Target
        <select value={targetId} onChange={(e) => setTargetId(e.target.value)}>
          <option value="">every target</option>
          {webhooks.map((webhook) => (
            <option key={webhook.id} value={webhook.id}>
              {webhook.url}
            </option>
          ))}
        </select>
      </label>
      <button
        type="button"
        className="secondary"
        disabled={deliveries.isFetching}
        onClick={() => void deliveries.refetch()}
      >
        Refresh deliveries
      </button>
      {deliveries.isError && <p role="alert">{errorText(deliveries.error)}</p>}
      {deliveries.rows?.length === 0 && <p>No deliveries.</p>}
      {deliveries.rows && deliveries.rows.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">Release</th>
              <th scope="col">Target</th>
              <th scope="col">Status</th>
              <th scope="col">Attempts</th>
              <th scope="col">Last error</th>
              <th scope="col">Next attempt</th>
            </tr>
          </thead>
          <tbody>
            {deliveries.rows.map((delivery) => (
              <tr key={delivery.id} data-delivery={delivery.version}>
                <td>{delivery.version}</td>
                <td>
                  <code>{urlOf.get(delivery.targetId) ?? delivery.targetId}</code>
                </td>
                <td>
                  {delivery.status}
                  {delivery.lastStatusCode === null ? '' : ` (HTTP ${delivery.lastStatusCode})`}
                </td>
                <td>{delivery.attempts}</td>
                <td>{delivery.lastError ?? ''}</td>
                <td>
                  <TimeStamp iso={delivery.nextAttemptAt} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <LoadMore pages={deliveries} what="deliveries" />
    </section>
  )
}
