import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { api } from '../../api'
import { ConfirmButton } from '../../components/confirm-button'
import { FormProblem } from '../../components/form-problem'
import { TimeStamp } from '../../components/time-stamp'
import { PasswordForm } from './password-form'
import { ROLES, type Role, roleNames, roleOf, type UserRow } from './types'

const COLUMNS = 4

/** One user: change the role, reset the password, remove; the panel's refusals (last admin, 403) shown here. */
export function UserRowView({ user, isSelf }: { user: UserRow; isSelf: boolean }) {
  const queryClient = useQueryClient()
  const [role, setRole] = useState<Role>(user.role)
  const [resetting, setResetting] = useState(false)
  const [status, setStatus] = useState('')
  // Their own change alters the signed-in principal too (its permissions, or its session).
  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: ['users.list'] }),
      isSelf ? queryClient.invalidateQueries({ queryKey: ['auth.me'] }) : undefined,
    ])
  const changeRole = useMutation({
    mutationFn: () => api.users.update({ id: user.id, role }),
    onSuccess: async (updated) => {
      setStatus(`${updated.email} is now ${updated.role}.`)
      await refresh()
    },
  })
  const remove = useMutation({ mutationFn: () => api.users.remove({ id: user.id }), onSuccess: refresh })
  const passwordDone = (changed: boolean) => {
    setResetting(false)
    if (!changed) return
    setStatus(`Password of ${user.email} changed; their sessions ended and their API tokens were revoked.`)
    void refresh()
  }
  return (
    <>
      <tr>
        <th scope="row">
          {user.email}
          {isSelf && <span className="note"> (you)</span>}
        </th>
        <td>
          <select
            aria-label={`Role of ${user.email}`}
            value={role}
            onChange={(event) => setRole(roleOf(event.target.value) ?? role)}
          >
            {roleNames.map((name) => (
              <option key={name} value={name} title={ROLES[name]}>
                {name}
              </option>
            ))}
          </select>
        </td>
        <td>
          <TimeStamp iso={user.createdAt} />
        </td>
        <td>
          <div className="actions">
            <button
              type="button"
              onClick={() => changeRole.mutate()}
              disabled={role === user.role || changeRole.isPending}
              aria-label={`Change role of ${user.email}`}
            >
              Change role
            </button>
            <button
              type="button"
              className="secondary"
              onClick={() => setResetting(!resetting)}
              aria-expanded={resetting}
              aria-label={`Reset password of ${user.email}`}
            >
              Reset password
            </button>
            <ConfirmButton
              label={`Remove ${user.email}`}
              confirmLabel={`Yes, remove ${user.email}${isSelf ? ' (yourself)' : ''}`}
              text="Remove"
              pending={remove.isPending}
              onConfirm={() => remove.mutate()}
            />
          </div>
          <FormProblem error={changeRole.error} fields={['role']} />
          <FormProblem error={remove.error} />
          <p aria-live="polite" className="note">
            {status}
          </p>
        </td>
      </tr>
      {resetting && (
        <tr>
          <td colSpan={COLUMNS}>
            <PasswordForm user={user} isSelf={isSelf} onDone={passwordDone} />
          </td>
        </tr>
      )}
    </>
  )
}
