import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { api, errorText } from '../../api'
import { ConfirmButton } from '../../components/confirm-button'
import { useSession } from '../../session'
import { AccountEditForm } from './account-edit-form'
import { AccountZones } from './account-zones'
import { kindOf, PROVIDERS, type AccountRow as Row } from './providers'
import { TestState } from './test-state'

/** One account: its last test, and (for settings:edit) test, edit and remove; dns accounts list their zones. */
export function AccountRow({ account }: { account: Row }) {
  const { can } = useSession()
  const queryClient = useQueryClient()
  const [open, setOpen] = useState<'zones' | 'edit' | null>(null)
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['accounts'] })
  const test = useMutation({ mutationFn: () => api.accounts.test({ id: account.id }), onSettled: refresh })
  const remove = useMutation({
    mutationFn: () => api.accounts.remove({ id: account.id }),
    onSuccess: refresh,
  })
  const isDns = kindOf(account) === 'dns'
  const toggle = (panel: 'zones' | 'edit') => setOpen(open === panel ? null : panel)
  return (
    <>
      <tr>
        <th scope="row">{account.name}</th>
        <td>
          {PROVIDERS[account.provider].label}
          {'zoneId' in account && account.zoneId && (
            <div className="note">
              zone <code>{account.zoneId}</code>
            </div>
          )}
          {account.apiBaseUrl && (
            <div className="note">
              API <code>{account.apiBaseUrl}</code>
            </div>
          )}
        </td>
        <td>
          <TestState state={account.lastTestState} />
          <div aria-live="polite">
            {test.isPending && 'Testing…'}
            {test.data && `Tested again: ${test.data.ok ? 'passed' : 'failed'}.`}
          </div>
          {test.isError && (
            <p role="alert" className="field-error">
              {errorText(test.error)}
            </p>
          )}
        </td>
        <td>
          <div className="actions">
            {can('settings:edit') && (
              <button
                type="button"
                onClick={() => test.mutate()}
                disabled={test.isPending}
                aria-label={`Test ${account.name}`}
              >
                Test
              </button>
            )}
            {isDns && (
              <button
                type="button"
                className="secondary"
                aria-expanded={open === 'zones'}
                onClick={() => toggle('zones')}
                aria-label={`Zones of ${account.name}`}
              >
                Zones
              </button>
            )}
            {can('settings:edit') && (
              <>
                <button
                  type="button"
                  className="secondary"
                  aria-expanded={open === 'edit'}
                  onClick={() => toggle('edit')}
                  aria-label={`Edit ${account.name}`}
                >
                  Edit
                </button>
                <ConfirmButton
                  label={`Remove ${account.name}`}
                  confirmLabel={`Yes, remove ${account.name}`}
                  text="Remove"
                  confirmText="Yes, remove"
                  onConfirm={() => remove.mutate()}
                  pending={remove.isPending}
                />
              </>
            )}
            {remove.isError && (
              <p role="alert" className="field-error">
                {errorText(remove.error)}
              </p>
            )}
          </div>
        </td>
      </tr>
      {open && (
        <tr>
          <td colSpan={4}>
            {open === 'zones' ? (
              <AccountZones accountId={account.id} name={account.name} />
            ) : (
              <AccountEditForm account={account} onDone={() => setOpen(null)} />
            )}
          </td>
        </tr>
      )}
    </>
  )
}
