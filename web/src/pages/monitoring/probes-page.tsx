import { useEffect, useMemo, useState } from 'react'
import { Link } from 'wouter'
import { api, errorText } from '../../api'
import { LoadMore } from '../../components/load-more'
import { SearchBox } from '../../components/search-box'
import { firstWait, StateBadge } from '../../components/state-badge'
import { useArrayPages } from '../../paged-list'
import { useSession } from '../../session'
import { CreateProbeForm } from './create-probe-form'
import { when } from './format'
import { locationsOf, locationText, useNodeNames } from './locations'
import { MonitoringTabs } from './monitoring-tabs'
import type { ProbeSummary } from './probe-types'
import { liveRows, useProbeWatch, type WatchStatus } from './use-probe-watch'

const STATUS_TEXT: Record<WatchStatus, string> = {
  connecting: 'Connecting to the live stream…',
  live: 'Live: states update as they change.',
  reconnecting: 'The live stream dropped; reconnecting…',
  stopped: 'The live stream was refused; reload the page to try again.',
}

/**
 * The probes, a page at a time and searchable by name or target, with their states kept live by the watch
 * stream, and the create form for probes:manage.
 */
export function ProbesPage() {
  const { can } = useSession()
  const [search, setSearch] = useState('')
  const list = useArrayPages(['probes.list', search], (page) =>
    api.probes.list({ ...page, ...(search ? { search } : {}) }),
  )
  const watch = useProbeWatch()
  const names = useNodeNames()
  const listed = list.rows
  const details = useMemo(() => new Map((listed ?? []).map((probe) => [probe.id, probe])), [listed])
  // The stream names every probe; while the list shows only some (a search, or pages not loaded yet), only
  // those listed are shown, with the stream's states laid over them.
  const partial = search !== '' || list.hasNextPage
  const watched = partial ? (watch.rows?.filter((row) => details.has(row.id)) ?? null) : watch.rows
  const rows = liveRows(listed ?? [], watched)
  const unknown = rows
    .filter((row) => !details.has(row.id))
    .map((row) => row.id)
    .join(' ')
  const { refetch } = list
  // Probes the stream names that the list has not seen (created elsewhere): fetch the details once per set.
  useEffect(() => {
    if (unknown !== '') void refetch()
  }, [unknown, refetch])
  return (
    <section>
      <h1>Monitoring</h1>
      <MonitoringTabs />
      <p aria-live="polite" className="note" data-testid="watch-status">
        {STATUS_TEXT[watch.status]}
      </p>
      {list.isError && <p role="alert">{errorText(list.error)}</p>}
      <SearchBox label="Search probes" placeholder="name or target" value={search} onSearch={setSearch} />
      {rows.length === 0 && !list.isPending ? (
        <p>{search ? 'No probe matches.' : 'No probes yet.'}</p>
      ) : (
        <table>
          <caption className="visually-hidden">Probes, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">State</th>
              <th scope="col">Type</th>
              <th scope="col">Target</th>
              <th scope="col">Last result</th>
              <th scope="col">Changed</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <ProbeRow key={row.id} row={row} detail={details.get(row.id)} names={names} />
            ))}
          </tbody>
        </table>
      )}
      <LoadMore pages={list} what="probes" />
      {can('probes:manage') && <CreateProbeForm />}
    </section>
  )
}

function ProbeRow({
  row,
  detail,
  names,
}: {
  row: Pick<ProbeSummary, 'id' | 'name' | 'state' | 'enabled' | 'lastChangedAt'>
  detail: ProbeSummary | undefined
  names: Map<string, string>
}) {
  return (
    <tr data-probe={row.id}>
      <td>
        <Link href={`/monitoring/probes/${row.id}`}>{row.name}</Link>
      </td>
      <td data-testid="probe-state">
        <StateBadge
          state={row.state}
          waiting={detail && firstWait({ ...detail, state: row.state, enabled: row.enabled })}
        />
        {!row.enabled && <span className="note"> (paused by hand)</span>}
      </td>
      <td>{detail?.type ?? ''}</td>
      <td>
        {detail ? (
          <>
            {detail.targetKind}: <code>{detail.target}</code>
            {locationsOf(detail.location).some((key) => key !== 'edge') && (
              <span className="note"> from {locationText(detail.location, names)}</span>
            )}
          </>
        ) : null}
      </td>
      <td>{detail?.lastResult?.detail ?? ''}</td>
      <td>
        {row.lastChangedAt ? <time dateTime={row.lastChangedAt}>{when(row.lastChangedAt)}</time> : 'never'}
      </td>
    </tr>
  )
}
