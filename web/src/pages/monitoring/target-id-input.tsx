import { useQuery } from '@tanstack/react-query'
import { api } from '../../api'
import { FieldError } from '../../components/form-problem'
import { useSession } from '../../session'
import type { TargetKind } from './probe-types'

async function choicesFor(kind: TargetKind): Promise<{ id: string; name: string }[]> {
  if (kind === 'node') return api.nodes.list({ limit: 500 })
  if (kind === 'instance') return api.instances.list({ limit: 500 })
  if (kind === 'site') return api.sites.list({ limit: 500 })
  return []
}

/** The row a fleet probe watches: a list to pick from when the principal can read the fleet, else its id. */
export function TargetIdInput({
  kind,
  value,
  onChange,
  error,
}: {
  kind: TargetKind
  value: string
  onChange: (id: string) => void
  error: unknown
}) {
  const { can } = useSession()
  const listable = kind !== 'external' && kind !== 'domain' && can('fleet:view')
  const choices = useQuery({
    queryKey: ['probe-targets', kind],
    queryFn: () => choicesFor(kind),
    enabled: listable,
  })
  if (kind === 'external') return null
  return (
    <label htmlFor="probe-target-id">
      Target {kind}
      {listable && choices.data ? (
        <select id="probe-target-id" value={value} onChange={(e) => onChange(e.target.value)} required>
          <option value="">Choose a {kind}</option>
          {choices.data.map((row) => (
            <option key={row.id} value={row.id}>
              {row.name} ({row.id})
            </option>
          ))}
        </select>
      ) : (
        <input
          type="text"
          value={value}
          onChange={(e) => onChange(e.target.value)}
          placeholder={`${kind} id`}
        />
      )}
      <FieldError error={error} field="targetId" />
    </label>
  )
}
