import { api, errorText } from '../../api'
import { LoadMore } from '../../components/load-more'
import { useCursorPages } from '../../paged-list'
import { useSession } from '../../session'
import { MonitoringTabs } from '../monitoring/monitoring-tabs'
import { CreateStatusPageForm, LIST_KEY } from './create-status-page-form'
import { StatusPageItem } from './status-page-item'

/** The status pages, each with its addresses to copy and, for probes:manage, edited in place; and a new one. */
export function StatusPagesPage() {
  const { can } = useSession()
  const canEdit = can('probes:manage')
  const list = useCursorPages(LIST_KEY, (page) => api.statusPages.list(page))
  const rows = list.data?.pages.flatMap((page) => page.statusPages) ?? []
  return (
    <section>
      <h1>Status pages</h1>
      <MonitoringTabs />
      <p className="note">
        A public page shows its probes' states, 90 days of uptime and recent changes to anyone, under the
        names given here, at most 30 seconds behind. Its JSON and its badge (an image to embed elsewhere) are
        public with it.
      </p>
      {list.isError && <p role="alert">{errorText(list.error)}</p>}
      {rows.length === 0 && !list.isPending ? (
        <p>No status pages yet.</p>
      ) : (
        <ul className="plain" aria-label="Status pages, newest first">
          {rows.map((page) => (
            <StatusPageItem key={page.id} page={page} canEdit={canEdit} />
          ))}
        </ul>
      )}
      <LoadMore pages={list} what="status pages" />
      {canEdit && <CreateStatusPageForm />}
    </section>
  )
}
