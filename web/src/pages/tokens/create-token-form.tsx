import { useMutation, useQueryClient } from '@tanstack/react-query'
import { type FormEvent, useState } from 'react'
import { api } from '../../api'
import { FieldError, FormProblem } from '../../components/form-problem'
import { UtcTimeInput, utcInstant } from '../../components/utc-time-input'
import { useSession } from '../../session'
import { PermissionPicker } from './permission-picker'
import type { NewToken, TokenInput, TokenPermission } from './types'

const FIELDS = ['name', 'permissions', 'expiresAt']

/** A new API token: a name, the permissions it carries (a subset of the caller's) and an optional expiry. */
export function CreateTokenForm({ onCreated }: { onCreated: (token: NewToken) => void }) {
  const { me } = useSession()
  const queryClient = useQueryClient()
  const offered: readonly TokenPermission[] = me.permissions
  const [chosen, setChosen] = useState<Set<TokenPermission>>(new Set())
  const create = useMutation({
    mutationFn: (input: TokenInput) => api.tokens.create(input),
    onSuccess: async (token) => {
      onCreated(token)
      await queryClient.invalidateQueries({ queryKey: ['tokens.list'] })
    },
  })
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = new FormData(event.currentTarget)
    const expires = utcInstant(String(form.get('expiresAt') ?? ''))
    create.mutate({
      name: String(form.get('name') ?? '').trim(),
      // In the order offered, so the request reads like the list.
      permissions: offered.filter((permission) => chosen.has(permission)),
      ...(expires ? { expiresAt: expires } : {}),
    })
  }
  return (
    <form onSubmit={submit} aria-label="Create an API token">
      <h2>New API token</h2>
      <label>
        Token name
        <input name="name" required maxLength={100} placeholder="deploy script" />
        <FieldError error={create.error} field="name" />
      </label>
      <PermissionPicker offered={offered} chosen={chosen} onChange={setChosen} />
      <FieldError error={create.error} field="permissions" />
      <UtcTimeInput name="expiresAt" label="Expires (optional; without it the token lasts until revoked)">
        <FieldError error={create.error} field="expiresAt" />
      </UtcTimeInput>
      <FormProblem error={create.error} fields={FIELDS} />
      <div className="actions">
        <button type="submit" disabled={create.isPending}>
          Create token
        </button>
      </div>
    </form>
  )
}
