import { useInfiniteQuery } from '@tanstack/react-query'
import { api } from '../../api'
import { QueryProblem } from '../../components/query-problem'
import { TimeStamp } from '../../components/time-stamp'
import { DELIVERIES_KEY } from './types'

const PAGE = 50

/** The delivery log, newest first, a page at a time. */
export function DeliveriesLog() {
  const log = useInfiniteQuery({
    queryKey: DELIVERIES_KEY,
    queryFn: ({ pageParam }) =>
      api.settings.notifications.deliveries(pageParam ? { limit: PAGE, cursor: pageParam } : { limit: PAGE }),
    initialPageParam: '',
    getNextPageParam: (page) => page.nextCursor ?? undefined,
    staleTime: 0,
  })
  const deliveries = log.data?.pages.flatMap((page) => page.deliveries) ?? []
  return (
    <section aria-labelledby="log-heading">
      <h2 id="log-heading">Delivery log</h2>
      <button
        type="button"
        className="secondary"
        disabled={log.isFetching}
        onClick={() => void log.refetch()}
      >
        Refresh log
      </button>
      <QueryProblem error={log.error} what="the delivery log" />
      {log.data && deliveries.length === 0 && <p>Nothing was sent yet.</p>}
      {deliveries.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Notification</th>
              <th scope="col">Channel</th>
              <th scope="col">Recipient</th>
              <th scope="col">Status</th>
              <th scope="col">Attempts</th>
              <th scope="col">Answer</th>
            </tr>
          </thead>
          <tbody>
            {deliveries.map((delivery) => (
              <tr key={delivery.id} data-delivery={delivery.key}>
                <td>
                  <TimeStamp iso={delivery.lastAttemptAt ?? delivery.createdAt} />
                </td>
                <td>
                  {delivery.event === 'resolved' ? 'Resolved: ' : ''}
                  {delivery.subject}
                </td>
                <td>{delivery.channel}</td>
                <td>
                  <code>{delivery.target}</code>
                </td>
                <td>{delivery.status}</td>
                <td>{delivery.attempts}</td>
                <td>{delivery.answer ?? ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {log.hasNextPage && (
        <button
          type="button"
          className="secondary"
          disabled={log.isFetchingNextPage}
          onClick={() => void log.fetchNextPage()}
        >
          Load more
        </button>
      )}
    </section>
  )
}
