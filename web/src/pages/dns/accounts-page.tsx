import { useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { api } from '../../api'
import { QueryProblem } from '../../components/query-problem'
import { useSession } from '../../session'
import { AccountCreateForm } from './account-create-form'
import { AccountDefaults } from './account-defaults'
import { AccountRow } from './account-row'
import { DnsTabs } from './dns-tabs'
import { type AccountKind, KINDS, kindOf } from './providers'

/** Provider accounts (dns, git, certificate issuers): their last test, zones, and the defaults cascade. */
export function AccountsPage() {
  const { can } = useSession()
  const [kind, setKind] = useState<AccountKind | ''>('')
  const all = useQuery({ queryKey: ['accounts', 'list'], queryFn: () => api.accounts.list({ limit: 500 }) })
  const shown = (all.data ?? []).filter((a) => kind === '' || kindOf(a) === kind)
  return (
    <section>
      <h1>Provider accounts</h1>
      <DnsTabs />
      {can('settings:edit') && <AccountCreateForm />}
      <h2>Accounts</h2>
      <label className="filters">
        Show
        <select value={kind} onChange={(e) => setKind(e.target.value as AccountKind | '')}>
          <option value="">Every kind</option>
          {KINDS.map((k) => (
            <option key={k.kind} value={k.kind}>
              {k.label}
            </option>
          ))}
        </select>
      </label>
      {all.isPending && <p className="loading">Loading accounts…</p>}
      <QueryProblem error={all.error} what="provider accounts" />
      {all.isSuccess && shown.length === 0 && <p>No accounts yet.</p>}
      {shown.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Provider</th>
              <th scope="col">Last test</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((account) => (
              <AccountRow key={account.id} account={account} />
            ))}
          </tbody>
        </table>
      )}
      {all.data && can('fleet:view') && <AccountDefaults accounts={all.data} />}
    </section>
  )
}
