import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { api } from '../../api'
import { ConfirmButton } from '../../components/confirm-button'
import { FormProblem } from '../../components/form-problem'
import { LoadMore } from '../../components/load-more'
import { QueryProblem } from '../../components/query-problem'
import { SearchBox } from '../../components/search-box'
import { useSession } from '../../session'
import { CheckNowButton, DiagnosisTable } from './diagnosis-table'
import { when } from './format'
import { RecordsTable } from './records-table'
import { RegisterHostnameForm } from './register-hostname-form'
import { useHostnamePages } from './site-lists'
import type { HostnameCheck, HostnameRow } from './types'

/** What a state that waits means, said next to it (the state's word alone reads like a label). */
const STATE_MEANING: Partial<Record<HostnameRow['state'], string>> = {
  instructions:
    'Waiting for the customer to create these records at their DNS provider; the panel cannot write them. Until they exist the hostname does not reach the site.',
  pending: 'The panel is writing these records; the hostname reaches the site once DNS resolves.',
}

// The list shows each hostname's last DNS answer; `check` reads DNS again at once and answers the diagnosis.
function HostnameItem({
  siteId,
  row: listed,
  manage,
}: {
  siteId: string
  row: HostnameRow
  manage: boolean
}) {
  const queryClient = useQueryClient()
  const remove = useMutation({
    mutationFn: () => api.customHostnames.remove({ siteId, hostname: listed.hostname }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['customHostnames.list', siteId] }),
  })
  // The last answer stays on screen while the next check runs (a new mutation starts without data).
  const [checked, setChecked] = useState<HostnameCheck>()
  const check = useMutation({
    mutationFn: () => api.customHostnames.check({ siteId, hostname: listed.hostname }),
    onSuccess: setChecked,
  })
  const row = checked && checked.dns.checkedAt > listed.dns.checkedAt ? { ...listed, ...checked } : listed
  return (
    <li className="card">
      <p>
        <strong>{row.hostname}</strong> — <span className={`state state-${row.state}`}>{row.state}</span>,
        tier {row.tier}
      </p>
      {STATE_MEANING[row.state] && (
        <p className="note" data-testid="hostname-state-meaning">
          {STATE_MEANING[row.state]}
        </p>
      )}
      <dl className="facts">
        <dt>DNS resolves</dt>
        <dd>
          {row.dns.resolves ? 'yes' : 'not yet'}{' '}
          <span className="note">(checked {when(row.dns.checkedAt)})</span>
        </dd>
        <dt>Certificate</dt>
        <dd>
          {row.cert.issued
            ? `issued, valid until ${when(row.cert.notAfter)}`
            : 'not issued yet (the first HTTPS request once DNS resolves issues it)'}
          {row.cert.lastError && (
            <span className="note" data-testid="cert-last-error">
              {' '}
              Last attempt {when(row.cert.lastError.at)} failed ({row.cert.lastError.kind}):{' '}
              {row.cert.lastError.detail}
              {row.cert.lastError.retryAfter
                ? ` The CA's limit lifts ${when(row.cert.lastError.retryAfter)}.`
                : ''}
              {row.cert.nextAttemptAt ? ` The node tries again ${when(row.cert.nextAttemptAt)}.` : ''}
            </span>
          )}
        </dd>
      </dl>
      {row.failureRemedy && (
        <div className="problem">
          <strong>What to do:</strong> {row.failureRemedy}
        </div>
      )}
      {row.lastError && (
        <div className="note">
          <strong>Still trying:</strong> {row.lastError}
        </div>
      )}
      <RecordsTable
        records={row.records}
        caption={`Records for ${row.hostname} (hand these to the customer)`}
      />
      {checked && <DiagnosisTable diagnosis={checked.diagnosis} hostname={row.hostname} />}
      <div className="actions">
        <CheckNowButton hostname={row.hostname} check={check} />
        {manage && (
          <ConfirmButton
            label={`Remove ${row.hostname}`}
            confirmLabel={`Yes, remove ${row.hostname}`}
            text="Remove"
            confirmText="Yes, remove"
            pending={remove.isPending}
            onConfirm={() => remove.mutate()}
          />
        )}
      </div>
      <FormProblem error={remove.error ?? check.error} />
    </li>
  )
}

/**
 * The site's custom hostnames with state, tier, records, `dns.resolves` and certificate, a page at a time and
 * searchable by hostname; register and remove.
 */
export function HostnamesList({ siteId }: { siteId: string }) {
  const { can } = useSession()
  const manage = can('custom-hostnames:manage')
  const [search, setSearch] = useState('')
  const hostnames = useHostnamePages(siteId, search)
  const rows = hostnames.data?.pages.flatMap((page) => page.hostnames)
  return (
    <section aria-labelledby="hostnames-heading">
      <h4 id="hostnames-heading">Hostnames</h4>
      <QueryProblem error={hostnames.error} what="the custom hostnames" />
      <button
        type="button"
        className="secondary"
        onClick={() => void hostnames.refetch()}
        disabled={hostnames.isFetching}
      >
        Refresh hostnames
      </button>
      <SearchBox label="Search hostnames" value={search} onSearch={setSearch} />
      {rows?.length === 0 && (
        <p className="note">{search ? 'No hostname matches.' : 'No custom hostname.'}</p>
      )}
      <ul className="plain">
        {rows?.map((row) => (
          <HostnameItem key={row.id} siteId={siteId} row={row} manage={manage} />
        ))}
      </ul>
      <LoadMore pages={hostnames} what="hostnames" />
      {manage && <RegisterHostnameForm siteId={siteId} />}
    </section>
  )
}
