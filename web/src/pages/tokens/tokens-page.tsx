import { useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { api } from '../../api'
import { QueryProblem } from '../../components/query-problem'
import { useSession } from '../../session'
import { CreateTokenForm } from './create-token-form'
import { NewTokenNotice } from './new-token-notice'
import { TokenRowView } from './token-row'
import type { NewToken } from './types'

/** The panel's API tokens (tokens:manage): create with a permission picker (shown once), list, revoke. */
export function TokensPage() {
  const { can } = useSession()
  const [created, setCreated] = useState<NewToken | null>(null)
  const tokens = useQuery({ queryKey: ['tokens.list'], queryFn: () => api.tokens.list({}) })
  // Creators are user ids; whoever may read the users sees their emails instead.
  const users = useQuery({
    queryKey: ['users.list'],
    queryFn: () => api.users.list({}),
    enabled: can('users:manage'),
  })
  const emails = new Map(users.data?.map((user) => [user.id, user.email]))
  const names = new Map(tokens.data?.map((token) => [token.id, token.name]))
  return (
    <section>
      <h1>API tokens</h1>
      <p className="note">
        A token acts with the permissions chosen here, narrowed to its creator's current role on every
        request. Revoking a token also revokes every token minted with it.
      </p>
      {created ? (
        <NewTokenNotice token={created} onDismiss={() => setCreated(null)} />
      ) : (
        <CreateTokenForm onCreated={setCreated} />
      )}
      <h2>Tokens</h2>
      {tokens.isPending && <p className="loading">Loading the tokens…</p>}
      <QueryProblem error={tokens.error} what="the API tokens" />
      {tokens.data?.length === 0 && <p className="note">No API token yet.</p>}
      {tokens.data && tokens.data.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Permissions</th>
              <th scope="col">Created by</th>
              <th scope="col">Created</th>
              <th scope="col">Expires</th>
              <th scope="col">State</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {tokens.data.map((token) => (
              <TokenRowView
                key={token.id}
                token={token}
                creator={emails.get(token.createdBy) ?? token.createdBy}
                parent={token.parentId ? (names.get(token.parentId) ?? token.parentId) : null}
              />
            ))}
          </tbody>
        </table>
      )}
    </section>
  )
}
