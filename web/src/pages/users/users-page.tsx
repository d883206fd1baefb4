import { useState } from 'react'
import { api } from '../../api'
import { LoadMore } from '../../components/load-more'
import { QueryProblem } from '../../components/query-problem'
import { useArrayPages } from '../../paged-list'
import { useSession } from '../../session'
import { CreateUserForm } from './create-user-form'
import { UserRowView } from './user-row'

/** The panel's users (users:manage): create with a role, change the role, reset the password, remove. */
export function UsersPage() {
  const { me } = useSession()
  const [creating, setCreating] = useState(false)
  const [status, setStatus] = useState('')
  const users = useArrayPages(['users.list'], (page) => api.users.list(page))
  return (
    <section>
      <h1>Users</h1>
      <p className="note">
        You can create, change or remove only users whose role's permissions you hold in full. The last admin
        can be neither demoted nor removed.
      </p>
      <p aria-live="polite" className="note">
        {status}
      </p>
      {users.isPending && <p className="loading">Loading the users…</p>}
      <QueryProblem error={users.error} what="the users" />
      {users.rows && (
        <table>
          <thead>
            <tr>
              <th scope="col">Email</th>
              <th scope="col">Role</th>
              <th scope="col">Created</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {users.rows.map((user) => (
              <UserRowView key={user.id} user={user} isSelf={user.id === me.user?.id} />
            ))}
          </tbody>
        </table>
      )}
      <LoadMore pages={users} what="users" />
      {creating ? (
        <CreateUserForm
          onDone={(created) => {
            setCreating(false)
            setStatus(created ? `Created ${created.email} (${created.role}).` : '')
          }}
        />
      ) : (
        <button type="button" onClick={() => setCreating(true)}>
          Add a user
        </button>
      )}
    </section>
  )
}
