import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { api, errorText } from '../../api'
import { useSession } from '../../session'
import { type AccountKind, type AccountRow, kindOf, PROVIDERS } from './providers'
import type { Scope, ScopeTarget } from './scope-targets'

function resolveInput(kind: AccountKind, scope: Scope, id: string) {
  if (scope === 'node') return { kind, nodeId: id }
  if (scope === 'instance') return { kind, instanceId: id }
  return { kind, domainId: id }
}

/** One kind's row of the cascade: the account that applies and where it came from, and this level's default. */
export function DefaultForKind({
  kind,
  kindLabel,
  scope,
  target,
  accounts,
}: {
  kind: AccountKind
  kindLabel: string
  scope: Scope
  target: ScopeTarget
  accounts: readonly AccountRow[]
}) {
  const { can } = useSession()
  const queryClient = useQueryClient()
  const resolved = useQuery({
    queryKey: ['accounts', 'resolve', kind, scope, target.id],
    queryFn: () => api.accounts.resolve(resolveInput(kind, scope, target.id)),
  })
  const here = resolved.data?.source === scope ? (resolved.data.account?.id ?? '') : ''
  const [picked, setPicked] = useState<string | null>(null)
  const value = picked ?? here
  const save = useMutation({
    mutationFn: () =>
      api.accounts.setDefault({ scope, scopeId: target.id, kind, accountId: value === '' ? null : value }),
    onSuccess: async () => {
      setPicked(null)
      await queryClient.invalidateQueries({ queryKey: ['accounts', 'resolve'] })
    },
  })
  const choices = accounts.filter((a) => kindOf(a) === kind)
  const applied = resolved.data?.account
  return (
    <tr>
      <th scope="row">{kindLabel}</th>
      <td>
        {resolved.isPending && 'Loading…'}
        {resolved.isError && <span className="field-error">{errorText(resolved.error)}</span>}
        {resolved.data &&
          (applied ? (
            <>
              <strong>{applied.name}</strong> ({PROVIDERS[applied.provider].label}), set on the{' '}
              {resolved.data.source}
            </>
          ) : (
            'none'
          ))}
      </td>
      {can('settings:edit') && (
        <td>
          <div className="actions">
            <select
              aria-label={`${kindLabel} default on ${target.label}`}
              value={value}
              onChange={(e) => setPicked(e.target.value)}
            >
              <option value="">No default here (inherit)</option>
              {choices.map((a) => (
                <option key={a.id} value={a.id}>
                  {a.name}
                </option>
              ))}
            </select>
            <button
              type="button"
              onClick={() => save.mutate()}
              disabled={save.isPending || value === here || resolved.isPending}
            >
              Save {kindLabel} default
            </button>
          </div>
          {save.isError && (
            <span role="alert" className="field-error">
              {errorText(save.error)}
            </span>
          )}
        </td>
      )}
    </tr>
  )
}
