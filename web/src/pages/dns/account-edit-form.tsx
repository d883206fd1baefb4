import { useMutation, useQueryClient } from '@tanstack/react-query'
import { type FormEvent, useId, useState } from 'react'
import { api } from '../../api'
import { FieldError, FormProblem } from '../../components/form-problem'
import { type AccountRow, PROVIDERS } from './providers'

const FIELDS = ['name', 'token', 'zoneId', 'apiBaseUrl'] as const

/** The value to send for an optional field: undefined when unchanged, null when emptied. */
function changed(before: string | null, now: string): string | null | undefined {
  const next = now.trim() ? now : null
  return next === before ? undefined : next
}

/** Changes an account (only the fields edited are sent); the panel tests it again on save. */
export function AccountEditForm({ account, onDone }: { account: AccountRow; onDone: () => void }) {
  const id = useId()
  const queryClient = useQueryClient()
  const storedZoneId = 'zoneId' in account ? account.zoneId : null
  const [name, setName] = useState(account.name)
  const [token, setToken] = useState('')
  const [zoneId, setZoneId] = useState(storedZoneId ?? '')
  const [apiBaseUrl, setApiBaseUrl] = useState(account.apiBaseUrl ?? '')
  const update = useMutation({
    mutationFn: () =>
      api.accounts.update({
        id: account.id,
        name: name === account.name ? undefined : name,
        token: token ? token : undefined,
        zoneId: PROVIDERS[account.provider].zoneById ? changed(storedZoneId, zoneId) : undefined,
        apiBaseUrl: changed(account.apiBaseUrl, apiBaseUrl),
      }),
    onSuccess: async () => {
      setToken('')
      await queryClient.invalidateQueries({ queryKey: ['accounts'] })
      onDone()
    },
  })
  const submit = (event: FormEvent) => {
    event.preventDefault()
    update.mutate()
  }
  return (
    <form onSubmit={submit} aria-label={`Edit account ${account.name}`} className="inline-form">
      <label>
        Name
        <input value={name} onChange={(e) => setName(e.target.value)} required maxLength={100} />
        <FieldError error={update.error} field="name" />
      </label>
      <label>
        New token
        <input
          type="password"
          autoComplete="off"
          value={token}
          onChange={(e) => setToken(e.target.value)}
          aria-describedby={`${id}-token-note`}
        />
        <span id={`${id}-token-note`} className="note">
          Leave empty to keep the stored token. Changing the API base URL needs the token again.
        </span>
        <FieldError error={update.error} field="token" />
      </label>
      {PROVIDERS[account.provider].zoneById && (
        <label>
          Zone id (empty for every zone)
          <input value={zoneId} onChange={(e) => setZoneId(e.target.value)} />
          <FieldError error={update.error} field="zoneId" />
        </label>
      )}
      <label>
        API base URL (empty for the provider's own)
        <input type="url" value={apiBaseUrl} onChange={(e) => setApiBaseUrl(e.target.value)} />
        <FieldError error={update.error} field="apiBaseUrl" />
      </label>
      <div className="actions">
        <button type="submit" disabled={update.isPending}>
          {update.isPending ? 'Saving and testing…' : 'Save and test'}
        </button>
        <button type="button" className="secondary" onClick={onDone}>
          Cancel
        </button>
      </div>
      <FormProblem error={update.error} fields={FIELDS} />
    </form>
  )
}
