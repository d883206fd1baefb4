import { useMutation } from '@tanstack/react-query'
import type { FormEvent } from 'react'
import { api } from '../../api'
import { FieldError, FormProblem } from '../../components/form-problem'
import type { UserRow } from './types'

/** A new password for a user: it ends the user's sessions and revokes the API tokens they created. */
export function PasswordForm({
  user,
  isSelf,
  onDone,
}: {
  user: UserRow
  isSelf: boolean
  onDone: (changed: boolean) => void
}) {
  const reset = useMutation({
    mutationFn: (password: string) => api.users.update({ id: user.id, password }),
    onSuccess: () => onDone(true),
  })
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    reset.mutate(String(new FormData(event.currentTarget).get('password') ?? ''))
  }
  return (
    <form onSubmit={submit} aria-label={`Reset the password of ${user.email}`}>
      <label>
        New password for {user.email}
        <input name="password" type="password" autoComplete="new-password" required minLength={12} />
        <FieldError error={reset.error} field="password" />
      </label>
      <p className="note">
        {isSelf
          ? 'This signs you out everywhere, this browser included, and revokes the API tokens you created.'
          : 'This ends their sessions and revokes the API tokens they created.'}
      </p>
      <FormProblem error={reset.error} fields={['password']} />
      <div className="actions">
        <button type="submit" disabled={reset.isPending}>
          Set password
        </button>
        <button type="button" className="secondary" onClick={() => onDone(false)}>
          Cancel
        </button>
      </div>
    </form>
  )
}
