import { useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { api } from '../../api'
import { LoadMore } from '../../components/load-more'
import { QueryProblem } from '../../components/query-problem'
import { useArrayPages } from '../../paged-list'
import { useSession } from '../../session'
import { CreateTokenForm } from './create-token-form'
import { NewTokenNotice } from './new-token-notice'
import { TokenRowView } from './token-row'
import type { NewToken } from './types'

/** The panel's API tokens (tokens:manage): create with a permission picker (shown once), list, revoke. */
export function TokensPage() {
  const { can } = useSession()
  const [created, setCreated] = useState<NewToken | null>(null)
  const tokens = useArrayPages(['tokens.list'], (page) => api.tokens.list(page))
  // Creators are user ids; whoever may read the users sees their emails instead.
  const users = useQuery({
    queryKey: ['users.list', 'lookup'],
    queryFn: () => api.users.list({ limit: 500 }),
    enabled: can('users:manage'),
  })
  const emails = new Map(users.data?.map((user) => [user.id, user.email]))
  const names = new Map(tokens.rows?.map((token) => [token.id, token.name]))
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
      {tokens.rows?.length === 0 && <p className="note">No API token yet.</p>}
      {tokens.rows && tokens.rows.length > 0 && (
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
            {tokens.rows.map((token) => (
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
      <LoadMore pages={tokens} what="tokens" />
    </section>
  )
}
