import { useQuery, useQueryClient } from '@tanstack/react-query'
import { useEffect } from 'react'
import { Link, useParams } from 'wouter'
import { api, errorText, problemOf } from '../../api'
import { firstWait, StateBadge } from '../../components/state-badge'
import { useSession } from '../../session'
import { AvailabilitySection } from './availability-section'
import { DeliveriesTable } from './deliveries-table'
import { EventsTable } from './events-table'
import { when } from './format'
import { HistorySection } from './history-section'
import { ProbeActions } from './probe-actions'
import { ProbeTest } from './probe-test'
import type { Probe } from './probe-types'
import { SettingsSection } from './settings-section'
import { useProbeWatch } from './use-probe-watch'

// The watch stream says when the probe changed; the page then reads it again instead of polling.
function useLiveRefresh(probe: Probe | undefined) {
  const { rows } = useProbeWatch()
  const queryClient = useQueryClient()
  const live = probe ? rows?.find((row) => row.id === probe.id) : undefined
  const stale =
    probe !== undefined &&
    live !== undefined &&
    (live.state !== probe.state ||
      live.enabled !== probe.enabled ||
      live.lastChangedAt !== probe.lastChangedAt)
  useEffect(() => {
    if (stale && probe) void queryClient.invalidateQueries({ queryKey: ['probes.get', probe.id] })
  }, [stale, probe, queryClient])
}

function LastResult({ probe }: { probe: Probe }) {
  const result = probe.lastResult
  const ping = probe.lastPing
  return (
    <dl className="settings">
      <div>
        <dt>Last result</dt>
        <dd>
          {result
            ? `${result.outcome} at ${when(result.at)}${result.latencyMs === null ? '' : ` in ${result.latencyMs} ms`}: ${result.detail}`
            : 'none yet'}
        </dd>
      </div>
      <div>
        <dt>Consecutive failures</dt>
        <dd>{probe.consecutiveFailures}</dd>
      </div>
      <div>
        <dt>Last checked</dt>
        <dd>{probe.lastCheckedAt ? when(probe.lastCheckedAt) : 'never'}</dd>
      </div>
      {probe.type === 'heartbeat' && (
        <div>
          <dt>Last ping</dt>
          <dd>
            {ping ? (
              <>
                {ping.signal}
                {ping.exitStatus === null ? '' : ` (exit ${ping.exitStatus})`} at {when(ping.at)}
                {ping.durationMs === null ? '' : `, run took ${ping.durationMs} ms`}
                {ping.body !== '' && <pre className="ping-body">{ping.body}</pre>}
              </>
            ) : (
              'never pinged'
            )}
          </dd>
        </div>
      )}
    </dl>
  )
}

/** One probe: state, last result, hourly history, events, settings, deliveries and its actions. */
export function ProbePage() {
  const { id = '' } = useParams<{ id: string }>()
  const { can } = useSession()
  const probe = useQuery({ queryKey: ['probes.get', id], queryFn: () => api.probes.get({ id }) })
  useLiveRefresh(probe.data)
  if (probe.isPending) return <p className="loading">Loading…</p>
  if (probe.isError)
    return (
      <section>
        <h1>Probe</h1>
        <p role="alert">
          {problemOf(probe.error)?.code === 'not_found' ? 'No such probe.' : errorText(probe.error)}{' '}
          <Link href="/monitoring">Back to the probes</Link>
        </p>
      </section>
    )
  const data = probe.data
  const archived = data.archivedAt !== null
  return (
    <section>
      <p>
        <Link href="/monitoring">Monitoring</Link> /
      </p>
      <h1>{data.name}</h1>
      <p aria-live="polite" data-testid="probe-state">
        <StateBadge state={data.state} waiting={firstWait(data)} /> · {data.type} · {data.targetKind}:{' '}
        <code>{data.target}</code>
        {archived && data.archivedAt && ` · archived ${when(data.archivedAt)}`}
        {!archived && !data.enabled && ' · paused by hand'}
      </p>
      <LastResult probe={data} />
      <AvailabilitySection probeId={data.id} />
      <HistorySection probeId={data.id} />
      <EventsTable events={data.events} firstWait={data.type === 'heartbeat' ? 'ping' : 'check'} />
      <SettingsSection probe={data} canEdit={can('probes:manage') && !archived} />
      <DeliveriesTable deliveries={data.deliveries} />
      {can('probes:manage') && !archived && <ProbeTest probe={data} />}
      {can('probes:manage') && !archived && <ProbeActions probe={data} />}
      {data.type === 'heartbeat' && !archived && (
        <p className="note">
          The heartbeat URL was shown once, when the probe was created; the panel cannot show it again.
          {can('probes:manage') ? ' Rotate the token above for a new one.' : ''}
        </p>
      )}
    </section>
  )
}
