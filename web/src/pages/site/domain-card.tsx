import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useEffect, useState } from 'react'
import { api, problemOf } from '../../api'
import { ConfirmButton } from '../../components/confirm-button'
import { FormProblem } from '../../components/form-problem'
import { QueryProblem } from '../../components/query-problem'
import { useSession } from '../../session'
import { CheckNowButton, DiagnosisTable } from './diagnosis-table'
import { inProgress, stepsOf, summaryOf } from './domain-steps'
import { when } from './format'
import type { DomainDetail, DomainRow } from './types'

// Fast while a job runs; every few seconds while it waits on DNS or the node.
const POLL_RUNNING_MS = 1000
const POLL_WAITING_MS = 2000

/** One domain: its states, the attach flow step by step (polled while a job works on it), and its actions. */
export function DomainCard({ row, supportsProxy }: { row: DomainRow; supportsProxy: boolean }) {
  const { can } = useSession()
  const manage = can('domains:manage')
  const queryClient = useQueryClient()
  const detail = useQuery({
    queryKey: ['domains.get', row.id],
    queryFn: () => api.domains.get({ id: row.id }),
    refetchInterval: (query) => {
      const data = query.state.data
      if (query.state.error || (data && !inProgress(data))) return false
      return data?.verification.at(-1)?.state === 'running' ? POLL_RUNNING_MS : POLL_WAITING_MS
    },
  })
  const gone = problemOf(detail.error)?.code === 'not_found'
  // A finished detach deletes the row: the list drops it.
  useEffect(() => {
    if (gone) void queryClient.invalidateQueries({ queryKey: ['domains.list', row.siteId] })
  }, [gone, queryClient, row.siteId])
  // Route setup and detach add and remove the domain's http route: the routes card follows each step.
  const progress = detail.data ? summaryOf(detail.data) : ''
  useEffect(() => {
    if (progress) void queryClient.invalidateQueries({ queryKey: ['routes.listForSite', row.siteId] })
  }, [progress, queryClient, row.siteId])
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['domains.get', row.id] })
  const renew = useMutation({ mutationFn: () => api.domains.renew({ id: row.id }), onSuccess: refresh })
  const detach = useMutation({ mutationFn: () => api.domains.detach({ id: row.id }), onSuccess: refresh })
  const attachAgain = useMutation({
    mutationFn: () => api.domains.attach({ siteId: row.siteId, hostname: row.hostname }),
    onSuccess: refresh,
  })
  // What check read stays shown until a newer get reads later (its diagnosis has a later checkedAt).
  const [checked, setChecked] = useState<DomainDetail>()
  const check = useMutation({ mutationFn: () => api.domains.check({ id: row.id }), onSuccess: setChecked })
  const proxied = useMutation({
    mutationFn: (value: boolean) => api.domains.setProxied({ id: row.id, proxied: value }),
    onSuccess: refresh,
    onError: refresh,
  })
  const domain = detail.data ?? { ...row, nextStep: null }
  const diagnosis =
    checked && (!detail.data || checked.diagnosis.checkedAt > detail.data.diagnosis.checkedAt)
      ? checked.diagnosis
      : detail.data?.diagnosis
  const green = domain.dnsState === 'verified' && domain.certState === 'issued'
  const failed = domain.dnsState === 'failed' || domain.certState === 'failed'
  const headingId = `domain-${row.id}`
  const actionError = renew.error ?? detach.error ?? attachAgain.error
  return (
    <article className="card" aria-labelledby={headingId}>
      <h4 id={headingId}>{domain.hostname}</h4>
      <p>
        Driver <strong>{domain.driver}</strong>, issuer {domain.issuer}. DNS{' '}
        <span className={`state state-${domain.dnsState}`}>{domain.dnsState}</span>, certificate{' '}
        <span className={`state state-${domain.certState}`}>{domain.certState}</span>
        {domain.certExpiresAt ? ` (expires ${when(domain.certExpiresAt)})` : ''}.
      </p>
      <p aria-live="polite" className="note">
        {gone ? `${domain.hostname}: detached` : summaryOf(domain)}
      </p>
      <ol className="steps" aria-label={`Progress of ${domain.hostname}`}>
        {stepsOf(domain.verification).map((step) => (
          <li key={`${step.step} ${step.at ?? 'not started'}`} className={`step step-${step.state}`}>
            <span className="step-label">{step.label}</span>{' '}
            <span className="step-state">{step.state === 'not-started' ? 'not started' : step.state}</span>
            {step.detail && <span className="step-detail"> — {step.detail}</span>}
            {step.at && <span className="note"> ({when(step.at)})</span>}
          </li>
        ))}
      </ol>
      {domain.failureRemedy && (
        <div className="problem" role="status">
          <strong>What to do:</strong> {domain.failureRemedy}
        </div>
      )}
      {detail.data?.cert.lastError && (
        <p className="note" data-testid="domain-cert-last-error">
          Last certificate attempt {when(detail.data.cert.lastError.at)} failed (
          {detail.data.cert.lastError.kind}): {detail.data.cert.lastError.detail}
          {detail.data.cert.nextAttemptAt
            ? ` The node tries again ${when(detail.data.cert.nextAttemptAt)}.`
            : ''}
        </p>
      )}
      {!green && !gone && diagnosis && (
        <details open={checked !== undefined}>
          <summary>Why it is not green yet</summary>
          <DiagnosisTable diagnosis={diagnosis} hostname={domain.hostname} />
          <CheckNowButton hostname={domain.hostname} check={check} />
          <FormProblem error={check.error} />
        </details>
      )}
      {domain.nextStep && (
        <div className="next-step">
          <strong>{domain.nextStep.title}</strong> {domain.nextStep.detail}
        </div>
      )}
      <QueryProblem error={gone ? null : detail.error} what="this domain" />
      {manage && !gone && (
        <div className="actions">
          {/* A failed renew keeps the route: renew again is the remedy it names. */}
          {(green || (failed && domain.routeId !== null)) && (
            <button
              type="button"
              onClick={() => renew.mutate()}
              disabled={renew.isPending}
              aria-label={`Renew certificate of ${domain.hostname}`}
            >
              Renew certificate
            </button>
          )}
          {(failed || proxied.data?.reattachToApply) && (
            <button
              type="button"
              onClick={() => attachAgain.mutate()}
              disabled={attachAgain.isPending}
              aria-label={`Attach ${domain.hostname} again`}
            >
              Attach again
            </button>
          )}
          {supportsProxy && (
            <label className="check">
              <input
                type="checkbox"
                checked={domain.proxied}
                disabled={proxied.isPending}
                onChange={(e) => proxied.mutate(e.target.checked)}
              />
              Proxied through the provider
            </label>
          )}
          <ConfirmButton
            label={`Detach ${domain.hostname}`}
            confirmLabel={`Yes, detach ${domain.hostname}`}
            text="Detach"
            confirmText="Yes, detach"
            pending={detach.isPending}
            onConfirm={() => detach.mutate()}
          />
        </div>
      )}
      {proxied.data?.reattachToApply && (
        <p className="note" role="status">
          Recorded. The provider applies it on the next attach: attach {domain.hostname} again.
        </p>
      )}
      <FormProblem error={actionError ?? proxied.error} />
    </article>
  )
}
