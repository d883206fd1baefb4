import { useId, useState } from 'react'
import { QueryProblem } from '../../components/query-problem'
import { useSession } from '../../session'
import { DefaultForKind } from './default-for-kind'
import { type AccountRow, KINDS } from './providers'
import { type Scope, useScopeTargets } from './scope-targets'

const SCOPES: readonly { scope: Scope; label: string }[] = [
  { scope: 'node', label: 'Node' },
  { scope: 'instance', label: 'Instance' },
  { scope: 'domain', label: 'Domain' },
]

/** The defaults cascade: which account applies to a node, instance or domain, and the default set on it. */
export function AccountDefaults({ accounts }: { accounts: readonly AccountRow[] }) {
  const id = useId()
  const { can } = useSession()
  const [scope, setScope] = useState<Scope>('node')
  const [chosen, setChosen] = useState('')
  const targets = useScopeTargets(scope)
  const list = targets.data ?? []
  const target = list.find((t) => t.id === chosen) ?? list[0]
  return (
    <section aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Defaults</h2>
      <p className="note">
        The most specific default wins: a domain's over its instance's over its node's. An instance also takes
        its node's default.
      </p>
      <div className="filters">
        <label>
          Set on a
          <select
            value={scope}
            onChange={(e) => {
              setScope(e.target.value as Scope)
              setChosen('')
            }}
          >
            {SCOPES.map((s) => (
              <option key={s.scope} value={s.scope}>
                {s.label}
              </option>
            ))}
          </select>
        </label>
        <label>
          Which {scope}
          <select
            value={target?.id ?? ''}
            onChange={(e) => setChosen(e.target.value)}
            disabled={!list.length}
          >
            {list.map((t) => (
              <option key={t.id} value={t.id}>
                {t.label}
              </option>
            ))}
          </select>
        </label>
      </div>
      {targets.isPending && <p className="loading">Loading…</p>}
      <QueryProblem error={targets.error} what={`the ${scope}s`} />
      {targets.isSuccess && !target && <p>No {scope} to set a default on yet.</p>}
      {target && (
        <table>
          <caption className="note">Accounts that apply to {target.label}</caption>
          <thead>
            <tr>
              <th scope="col">Kind</th>
              <th scope="col">Applies</th>
              {can('settings:edit') && <th scope="col">Default on this {scope}</th>}
            </tr>
          </thead>
          <tbody>
            {KINDS.map((k) => (
              <DefaultForKind
                key={`${target.id}-${k.kind}`}
                kind={k.kind}
                kindLabel={k.label}
                scope={scope}
                target={target}
                accounts={accounts}
              />
            ))}
          </tbody>
        </table>
      )}
    </section>
  )
}
