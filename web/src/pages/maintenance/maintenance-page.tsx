import { useMutation, useQueryClient } from '@tanstack/react-query'
import { api, errorText } from '../../api'
import { ConfirmButton } from '../../components/confirm-button'
import { FormProblem } from '../../components/form-problem'
import { LoadMore } from '../../components/load-more'
import { TimeStamp } from '../../components/time-stamp'
import { useCursorPages } from '../../paged-list'
import { useSession } from '../../session'
import { MonitoringTabs } from '../monitoring/monitoring-tabs'
import { CreateWindowForm, LIST_KEY } from './create-window-form'

type MaintenanceWindow = Awaited<ReturnType<typeof api.maintenance.get>>

const DAY_NAMES: Record<string, string> = {
  mon: 'Mon',
  tue: 'Tue',
  wed: 'Wed',
  thu: 'Thu',
  fri: 'Fri',
  sat: 'Sat',
  sun: 'Sun',
}

const counted = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`

/** When a window opens, in words: once with its instants, or weekly in its zone. */
function When({ window }: { window: MaintenanceWindow }) {
  const schedule = window.schedule
  if (schedule.kind === 'once')
    return (
      <>
        Once, <TimeStamp iso={schedule.startsAt} /> to <TimeStamp iso={schedule.endsAt} />
      </>
    )
  return (
    <>
      Weekly, {schedule.days.map((day) => DAY_NAMES[day]).join(', ')} at {schedule.startTime} (
      {schedule.timezone}) for {schedule.durationMinutes} min
    </>
  )
}

function Opening({ window }: { window: MaintenanceWindow }) {
  if (!window.opening) return <>over</>
  return window.active ? (
    <>
      open until <TimeStamp iso={window.opening.endsAt} />
    </>
  ) : (
    <>
      next <TimeStamp iso={window.opening.startsAt} />
    </>
  )
}

function WindowRow({ window, canEdit }: { window: MaintenanceWindow; canEdit: boolean }) {
  const queryClient = useQueryClient()
  const remove = useMutation({
    mutationFn: () => api.maintenance.remove({ id: window.id }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: LIST_KEY }),
  })
  return (
    <tr data-window={window.id}>
      <td>{window.title}</td>
      <td>
        <When window={window} />
      </td>
      <td>
        {counted(window.probeIds.length, 'probe')}, {counted(window.statusPageIds.length, 'status page')}
      </td>
      <td>
        <Opening window={window} />
      </td>
      {canEdit && (
        <td>
          <ConfirmButton
            label={`Remove ${window.title}`}
            confirmLabel={`Yes, remove ${window.title}`}
            text="Remove"
            confirmText="Yes, remove"
            onConfirm={() => remove.mutate()}
            pending={remove.isPending}
          />
          <FormProblem error={remove.error} fields={[]} />
        </td>
      )}
    </tr>
  )
}

/** The maintenance windows, and a new one for probes:manage. */
export function MaintenancePage() {
  const { can } = useSession()
  const canEdit = can('probes:manage')
  const list = useCursorPages(LIST_KEY, (page) => api.maintenance.list(page))
  const rows = list.data?.pages.flatMap((page) => page.windows) ?? []
  return (
    <section>
      <h1>Maintenance windows</h1>
      <MonitoringTabs />
      <p className="note">
        While a window covers a probe its notifications are withheld (one goes out after the window if the
        state changed), and status pages show it as under maintenance.
      </p>
      {list.isError && <p role="alert">{errorText(list.error)}</p>}
      {rows.length === 0 && !list.isPending ? (
        <p>No maintenance windows yet.</p>
      ) : (
        <table>
          <caption className="visually-hidden">Maintenance windows, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Title</th>
              <th scope="col">When</th>
              <th scope="col">Covers</th>
              <th scope="col">Status</th>
              {canEdit && <th scope="col">Actions</th>}
            </tr>
          </thead>
          <tbody>
            {rows.map((window) => (
              <WindowRow key={window.id} window={window} canEdit={canEdit} />
            ))}
          </tbody>
        </table>
      )}
      <LoadMore pages={list} what="maintenance windows" />
      {canEdit && <CreateWindowForm />}
    </section>
  )
}
