import { useMutation } from '@tanstack/react-query'
import { useId } from 'react'
import { api, errorText } from '../../api'
import { DnsCheckResult } from './dns-check'

/** Asks a recursive resolver whether the zone is delegated to the boxes and whether the parent's DS fits. */
export function ZoneChecks({ zoneId }: { zoneId: string }) {
  const id = useId()
  const delegation = useMutation({ mutationFn: () => api.dnsServers.zones.verifyDelegation({ id: zoneId }) })
  const ds = useMutation({ mutationFn: () => api.dnsServers.zones.verifyDs({ id: zoneId }) })
  return (
    <section aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Delegation</h2>
      <div className="actions">
        <button
          type="button"
          className="secondary"
          onClick={() => delegation.mutate()}
          disabled={delegation.isPending}
        >
          Check delegation (NS)
        </button>
        <button type="button" className="secondary" onClick={() => ds.mutate()} disabled={ds.isPending}>
          Check DS at the parent
        </button>
      </div>
      <div aria-live="polite">
        {(delegation.isPending || ds.isPending) && 'Asking a recursive resolver…'}
        {delegation.data && <DnsCheckResult check={delegation.data} />}
        {ds.data && <DnsCheckResult check={ds.data} />}
      </div>
      {[delegation.error, ds.error].filter(Boolean).map((error) => (
        <p key={errorText(error)} role="alert" className="problem">
          {errorText(error)}
        </p>
      ))}
    </section>
  )
}
