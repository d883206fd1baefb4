import { useMutation, useQueryClient } from '@tanstack/react-query'
import { type FormEvent, useState } from 'react'
import { api } from '../../api'
import { FieldError, FormProblem } from '../../components/form-problem'
import { ROLES, type Role, roleNames, roleOf, type UserRow } from './types'

const FIELDS = ['email', 'password', 'role']

/** A new user with a role; the panel refuses (403) a role whose permissions the signed-in principal lacks. */
export function CreateUserForm({ onDone }: { onDone: (created: UserRow | null) => void }) {
  const queryClient = useQueryClient()
  const [role, setRole] = useState<Role>('operator')
  const create = useMutation({
    mutationFn: (input: { email: string; password: string }) => api.users.create({ ...input, role }),
    onSuccess: async (created) => {
      await queryClient.invalidateQueries({ queryKey: ['users.list'] })
      onDone(created)
    },
  })
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = new FormData(event.currentTarget)
    create.mutate({ email: String(form.get('email') ?? ''), password: String(form.get('password') ?? '') })
  }
  return (
    <form onSubmit={submit} aria-label="Create a user" className="panel">
      <h2>New user</h2>
      <label>
        Email
        <input name="email" type="email" autoComplete="off" required maxLength={254} />
        <FieldError error={create.error} field="email" />
      </label>
      <label>
        Password (at least 12 characters; hand it over privately)
        <input name="password" type="password" autoComplete="new-password" required minLength={12} />
        <FieldError error={create.error} field="password" />
      </label>
      <label>
        Role
        <select value={role} onChange={(event) => setRole(roleOf(event.target.value) ?? role)}>
          {roleNames.map((name) => (
            <option key={name} value={name}>
              {ROLES[name]}
            </option>
          ))}
        </select>
        <FieldError error={create.error} field="role" />
      </label>
      <FormProblem error={create.error} fields={FIELDS} />
      <div className="actions">
        <button type="submit" disabled={create.isPending}>
          Create user
        </button>
        <button type="button" className="secondary" onClick={() => onDone(null)}>
          Cancel
        </button>
      </div>
    </form>
  )
}
