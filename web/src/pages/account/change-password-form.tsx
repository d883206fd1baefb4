import { useMutation } from '@tanstack/react-query'
import { type FormEvent, useState } from 'react'
import { api } from '../../api'
import { FieldError, FormProblem } from '../../components/form-problem'

const FIELDS = ['currentPassword', 'newPassword'] as const

/** The signed-in user's own new password: the current one proves it is them; their other sessions end. */
export function ChangePasswordForm() {
  const [mismatch, setMismatch] = useState(false)
  const change = useMutation({
    mutationFn: (input: { currentPassword: string; newPassword: string }) => api.auth.changePassword(input),
  })
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = event.currentTarget
    const data = new FormData(form)
    const newPassword = String(data.get('newPassword') ?? '')
    const repeated = newPassword === String(data.get('repeatPassword') ?? '')
    setMismatch(!repeated)
    if (!repeated) {
      change.reset()
      return
    }
    change.mutate(
      { currentPassword: String(data.get('currentPassword') ?? ''), newPassword },
      { onSuccess: () => form.reset() },
    )
  }
  return (
    <form
      onSubmit={submit}
      aria-label="Change your password"
      onInput={() => change.isSuccess && change.reset()}
    >
      <label>
        Current password
        <input name="currentPassword" type="password" autoComplete="current-password" required />
        <FieldError error={change.error} field="currentPassword" />
      </label>
      <label>
        New password
        <input name="newPassword" type="password" autoComplete="new-password" required minLength={12} />
        <FieldError error={change.error} field="newPassword" />
      </label>
      <label>
        New password again
        <input name="repeatPassword" type="password" autoComplete="new-password" required minLength={12} />
        {mismatch && (
          <span className="field-error" role="alert">
            The two new passwords differ.
          </span>
        )}
      </label>
      <p className="note">
        At least 12 characters. Your other sessions are signed out; this one and your API tokens stay.
      </p>
      <FormProblem error={change.error} fields={FIELDS} />
      {change.isSuccess && (
        <p role="status" className="note">
          Your password is changed. Every other session of yours is signed out.
        </p>
      )}
      <div className="actions">
        <button type="submit" disabled={change.isPending}>
          Change password
        </button>
      </div>
    </form>
  )
}
