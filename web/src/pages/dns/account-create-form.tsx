import { useMutation, useQueryClient } from '@tanstack/react-query'
import { type FormEvent, useId, useState } from 'react'
import { api } from '../../api'
import { FieldError, FormProblem } from '../../components/form-problem'
import { type AccountKind, type AccountProvider, KINDS, PROVIDERS, providersOf } from './providers'
import { TestState } from './test-state'

const FIELDS = ['kind', 'name', 'provider', 'token', 'zoneId', 'apiBaseUrl'] as const

/** Saves a provider account; the panel tests it at once and keeps it even when the test fails. */
export function AccountCreateForm() {
  const id = useId()
  const queryClient = useQueryClient()
  const [kind, setKind] = useState<AccountKind>('dns')
  const [provider, setProvider] = useState<AccountProvider>('provider_a')
  const [name, setName] = useState('')
  const [token, setToken] = useState('')
  const [zoneId, setZoneId] = useState('')
  const [apiBaseUrl, setApiBaseUrl] = useState('')
  const create = useMutation({
    mutationFn: () =>
      api.accounts.create({
        kind,
        name,
        provider,
        token,
        zoneId: zoneId.trim() ? zoneId : undefined,
        apiBaseUrl: apiBaseUrl.trim() ? apiBaseUrl : undefined,
      }),
    onSuccess: () => {
      // The next account starts from an empty form; the token, write-only, leaves the page with it.
      setKind('dns')
      setProvider('provider_a')
      setName('')
      setToken('')
      setZoneId('')
      setApiBaseUrl('')
      return queryClient.invalidateQueries({ queryKey: ['accounts'] })
    },
  })
  const chooseKind = (next: AccountKind) => {
    setKind(next)
    const [first] = providersOf(next)
    if (first) setProvider(first)
  }
  const submit = (event: FormEvent) => {
    event.preventDefault()
    create.mutate()
  }
  return (
    <form onSubmit={submit} aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Add an account</h2>
      <label>
        Kind
        <select value={kind} onChange={(e) => chooseKind(e.target.value as AccountKind)}>
          {KINDS.map((k) => (
            <option key={k.kind} value={k.kind}>
              {k.label}
            </option>
          ))}
        </select>
        <FieldError error={create.error} field="kind" />
      </label>
      <label>
        Provider
        <select value={provider} onChange={(e) => setProvider(e.target.value as AccountProvider)}>
          {providersOf(kind).map((p) => (
            <option key={p} value={p}>
              {PROVIDERS[p].label}
            </option>
          ))}
        </select>
        <FieldError error={create.error} field="provider" />
      </label>
      <label>
        Name
        <input value={name} onChange={(e) => setName(e.target.value)} required maxLength={100} />
        <FieldError error={create.error} field="name" />
      </label>
      <label>
        Token
        <input
          type="password"
          autoComplete="off"
          value={token}
          onChange={(e) => setToken(e.target.value)}
          required
          aria-describedby={`${id}-token-note`}
        />
        <span id={`${id}-token-note`} className="note">
          Stored sealed and never shown again, not even to admins.
        </span>
        <FieldError error={create.error} field="token" />
      </label>
      {PROVIDERS[provider].zoneById && (
        <label>
          Zone id (optional)
          <input
            value={zoneId}
            onChange={(e) => setZoneId(e.target.value)}
            aria-describedby={`${id}-zone-note`}
          />
          <span id={`${id}-zone-note`} className="note">
            Narrows the account to one zone.
          </span>
          <FieldError error={create.error} field="zoneId" />
        </label>
      )}
      <label>
        API base URL (optional)
        <input
          type="url"
          value={apiBaseUrl}
          onChange={(e) => setApiBaseUrl(e.target.value)}
          placeholder="the provider's own API"
          aria-describedby={`${id}-api-note`}
        />
        <span id={`${id}-api-note`} className="note">
          Replaces the whole API root, for a proxy or a test double.
        </span>
        <FieldError error={create.error} field="apiBaseUrl" />
      </label>
      <button type="submit" disabled={create.isPending}>
        {create.isPending ? 'Saving and testing…' : 'Save and test account'}
      </button>
      <FormProblem error={create.error} fields={FIELDS} />
      <div aria-live="polite">
        {create.data && (
          <p>
            Saved <strong>{create.data.name}</strong>. First test:{' '}
            <TestState state={create.data.lastTestState} />
          </p>
        )}
      </div>
    </form>
  )
}
