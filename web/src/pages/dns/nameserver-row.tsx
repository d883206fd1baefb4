import { useMutation, useQueryClient } from '@tanstack/react-query'
import { api, errorText } from '../../api'
import { ConfirmButton } from '../../components/confirm-button'
import { useSession } from '../../session'
import { DnsCheckResult } from './dns-check'
import { when } from './format'

type Nameserver = Awaited<ReturnType<typeof api.dnsServers.nameservers.list>>[number]

function Health({ health }: { health: Nameserver['health'] }) {
  if (health.ok === null) return <span className="note">not checked yet</span>
  return (
    <>
      <span className={`state ${health.ok ? 'state-up' : 'state-down'}`}>
        {health.ok ? 'healthy' : 'failing'}
      </span>{' '}
      {health.detail} <span className="note">({when(health.checkedAt)})</span>
    </>
  )
}

/** One nameserver box: addresses, PowerDNS, NS health; for settings:edit install, verify glue and remove. */
export function NameserverRow({ box }: { box: Nameserver }) {
  const { can } = useSession()
  const queryClient = useQueryClient()
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['dnsServers'] })
  const id = { id: box.id }
  const install = useMutation({
    mutationFn: () => api.dnsServers.nameservers.installPowerDns(id),
    onSuccess: refresh,
  })
  const glue = useMutation({
    mutationFn: () => api.dnsServers.nameservers.verifyGlue(id),
    onSettled: refresh,
  })
  const remove = useMutation({ mutationFn: () => api.dnsServers.nameservers.remove(id), onSuccess: refresh })
  const edit = can('settings:edit')
  return (
    <tr>
      <th scope="row">{box.name}</th>
      <td>
        {box.hostname}
        <div className="note">{[box.publicIpv4, box.publicIpv6].filter(Boolean).join(', ')}</div>
      </td>
      <td>
        {box.powerDns ? (
          <>
            installed <div className="note">{box.powerDns.apiUrl}</div>
          </>
        ) : (
          'not installed'
        )}
        <div aria-live="polite">
          {install.isPending &&
            'Asking the node agent to install PowerDNS, then checking its API answers with the new key…'}
          {install.isSuccess && 'PowerDNS installed; the box joins every zone and its NS set.'}
        </div>
        {install.isError && (
          <p role="alert" className="field-error">
            Install failed: {errorText(install.error)}
          </p>
        )}
      </td>
      <td>
        <Health health={box.health} />
        <div aria-live="polite">
          {glue.isPending && 'Resolving the host name…'}
          {glue.data && <DnsCheckResult check={glue.data} />}
        </div>
        {glue.isError && (
          <p role="alert" className="field-error">
            {errorText(glue.error)}
          </p>
        )}
      </td>
      {edit && (
        <td>
          <div className="actions">
            {!box.powerDns && (
              <button
                type="button"
                onClick={() => install.mutate()}
                disabled={install.isPending}
                aria-label={`Install PowerDNS on ${box.name}`}
              >
                Install PowerDNS
              </button>
            )}
            <button
              type="button"
              className="secondary"
              onClick={() => glue.mutate()}
              disabled={glue.isPending}
              aria-label={`Verify glue of ${box.name}`}
            >
              Verify glue
            </button>
            <ConfirmButton
              label={`Remove ${box.name}`}
              confirmLabel={`Yes, remove ${box.name} (PowerDNS stays on the machine)`}
              text="Remove"
              onConfirm={() => remove.mutate()}
              pending={remove.isPending}
            />
            {remove.isError && (
              <p role="alert" className="field-error">
                {errorText(remove.error)}
              </p>
            )}
          </div>
        </td>
      )}
    </tr>
  )
}
