import { useMutation, useQueryClient } from '@tanstack/react-query'
import { api, errorText } from '../../api'
import { ConfirmButton } from '../../components/confirm-button'
import { FormProblem } from '../../components/form-problem'
import { LoadMore } from '../../components/load-more'
import { useCursorPages } from '../../paged-list'
import { useSession } from '../../session'
import { MonitoringTabs } from '../monitoring/monitoring-tabs'
import { CreateStatusPageForm, LIST_KEY } from './create-status-page-form'

type StatusPage = Awaited<ReturnType<typeof api.statusPages.get>>

function StatusPageRow({ page, canEdit }: { page: StatusPage; canEdit: boolean }) {
  const queryClient = useQueryClient()
  const refresh = () => queryClient.invalidateQueries({ queryKey: LIST_KEY })
  const update = useMutation({
    mutationFn: () => api.statusPages.update({ id: page.id, public: !page.public }),
    onSuccess: refresh,
  })
  const remove = useMutation({
    mutationFn: () => api.statusPages.remove({ id: page.id }),
    onSuccess: refresh,
  })
  const probeCount = page.groups.reduce((sum, group) => sum + group.probes.length, 0)
  return (
    <tr data-status-page={page.slug}>
      <td>{page.title}</td>
      <td>
        <a href={page.url}>/status/{page.slug}</a>
      </td>
      <td>{page.public ? 'public' : 'private'}</td>
      <td>{probeCount}</td>
      {canEdit && (
        <td>
          <div className="actions">
            <button
              type="button"
              className="secondary"
              disabled={update.isPending}
              onClick={() => update.mutate()}
            >
              {page.public ? 'Make private' : 'Make public'}
              <span className="visually-hidden"> {page.title}</span>
            </button>
            <ConfirmButton
              label={`Remove ${page.title}`}
              confirmLabel={`Yes, remove ${page.title}`}
              text="Remove"
              confirmText="Yes, remove"
              onConfirm={() => remove.mutate()}
              pending={remove.isPending}
            />
          </div>
          <FormProblem error={update.error ?? remove.error} fields={[]} />
        </td>
      )}
    </tr>
  )
}

/** The status pages, and a new one for probes:manage. */
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
        names given here, at most 30 seconds behind.
      </p>
      {list.isError && <p role="alert">{errorText(list.error)}</p>}
      {rows.length === 0 && !list.isPending ? (
        <p>No status pages yet.</p>
      ) : (
        <table>
          <caption className="visually-hidden">Status pages, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Title</th>
              <th scope="col">Address</th>
              <th scope="col">Visibility</th>
              <th scope="col">Probes</th>
              {canEdit && <th scope="col">Actions</th>}
            </tr>
          </thead>
          <tbody>
            {rows.map((page) => (
              <StatusPageRow key={page.id} page={page} canEdit={canEdit} />
            ))}
          </tbody>
        </table>
      )}
      <LoadMore pages={list} what="status pages" />
      {canEdit && <CreateStatusPageForm />}
    </section>
  )
}
