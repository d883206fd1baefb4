import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useId } from 'react'
import { api, errorText } from '../../api'
import { ConfirmButton } from '../../components/confirm-button'
import { useSession } from '../../session'
import { BoxResults } from './box-results'
import { DsRecords } from './ds-records'

/** DNSSEC for a zone: its state, the switch (settings:edit) with each box's outcome, and the DS to copy. */
export function DnssecPanel({ zone }: { zone: { id: string; name: string; dnssec: boolean } }) {
  const id = useId()
  const { can } = useSession()
  const queryClient = useQueryClient()
  const toggle = useMutation({
    mutationFn: (enabled: boolean) => api.dnsServers.zones.setDnssec({ id: zone.id, enabled }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: ['dnsServers'] }),
  })
  return (
    <section aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>DNSSEC</h2>
      <p>
        {zone.name} is <strong>{zone.dnssec ? 'signed' : 'not signed'}</strong>.
      </p>
      {can('settings:edit') &&
        (zone.dnssec ? (
          <ConfirmButton
            label="Turn DNSSEC off"
            confirmLabel="Yes, stop signing (remove the DS at the registrar first)"
            onConfirm={() => toggle.mutate(false)}
            pending={toggle.isPending}
          />
        ) : (
          <button type="button" onClick={() => toggle.mutate(true)} disabled={toggle.isPending}>
            Turn DNSSEC on
          </button>
        ))}
      <div aria-live="polite">
        {toggle.isPending && 'Changing signing on every box…'}
        {toggle.data && (
          <BoxResults
            boxes={toggle.data.boxes}
            caption={`DNSSEC turned ${toggle.data.dnssec ? 'on' : 'off'}: each box`}
          />
        )}
      </div>
      {toggle.isError && (
        <p role="alert" className="problem">
          {errorText(toggle.error)}
        </p>
      )}
      {zone.dnssec && <DsRecords zoneId={zone.id} />}
    </section>
  )
}
