import type { FormEvent } from 'react'
import { FieldError, FormProblem } from '../../components/form-problem'
import type { NodeRow, NodeSave } from './types'

const FIELDS = ['name', 'roles', 'agentUrl', 'agentSecret', 'publicIpv4', 'publicIpv6', 'dnsTarget']

// Blank optional inputs clear the field (null); on an edit only what changed is sent.
function saveOf(form: FormData, node: NodeRow | null): NodeSave {
  const text = (name: string) => String(form.get(name) ?? '').trim()
  const optional = (name: string) => text(name) || null
  const roles: ['host'] | ['nameserver'] = text('role') === 'nameserver' ? ['nameserver'] : ['host']
  const fields = {
    name: text('name'),
    agentUrl: text('agentUrl'),
    publicIpv4: optional('publicIpv4'),
    publicIpv6: optional('publicIpv6'),
    dnsTarget: optional('dnsTarget'),
  }
  const agentSecret = text('agentSecret')
  if (!node) return { kind: 'create', input: { ...fields, roles, agentSecret } }
  const changed = Object.fromEntries(
    Object.entries(fields).filter(([key, value]) => node[key as keyof typeof fields] !== value),
  )
  return {
    kind: 'update',
    input: {
      id: node.id,
      ...changed,
      ...(roles[0] !== node.roles[0] ? { roles } : {}),
      ...(agentSecret ? { agentSecret } : {}),
    },
  }
}

/** Enrols a node (`node` null) or edits one; the agent secret is write-only. */
export function NodeForm({
  node,
  error,
  pending,
  onSubmit,
  onCancel,
}: {
  node: NodeRow | null
  error: unknown
  pending: boolean
  onSubmit: (save: NodeSave) => void
  onCancel: () => void
}) {
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    onSubmit(saveOf(new FormData(event.currentTarget), node))
  }
  return (
    <form onSubmit={submit} aria-label={node ? `Edit node ${node.name}` : 'Add a node'}>
      <label>
        Name
        <input name="name" defaultValue={node?.name} required maxLength={100} />
        <FieldError error={error} field="name" />
      </label>
      <label>
        Role
        <select name="role" defaultValue={node?.roles[0] ?? 'host'}>
          <option value="host">host (runs instances)</option>
          <option value="nameserver">nameserver (hosts no instance)</option>
        </select>
        <FieldError error={error} field="roles" />
      </label>
      <label>
        Agent URL
        <input
          name="agentUrl"
          type="url"
          defaultValue={node?.agentUrl}
          required
          placeholder="https://node1.example.net:8443"
        />
        <FieldError error={error} field="agentUrl" />
      </label>
      <label>
        Agent secret{node ? ' (leave blank to keep the stored one)' : ''}
        <input
          name="agentSecret"
          type="password"
          autoComplete="new-password"
          minLength={16}
          required={!node}
        />
        <FieldError error={error} field="agentSecret" />
      </label>
      <label>
        Public IPv4 (optional)
        <input name="publicIpv4" defaultValue={node?.publicIpv4 ?? ''} inputMode="decimal" />
        <FieldError error={error} field="publicIpv4" />
      </label>
      <label>
        Public IPv6 (optional)
        <input name="publicIpv6" defaultValue={node?.publicIpv6 ?? ''} />
        <FieldError error={error} field="publicIpv6" />
      </label>
      <label>
        DNS target (optional: the hostname or address customer records point at)
        <input name="dnsTarget" defaultValue={node?.dnsTarget ?? ''} />
        <FieldError error={error} field="dnsTarget" />
      </label>
      <FormProblem error={error} fields={FIELDS} />
      <div className="actions">
        <button type="submit" disabled={pending}>
          {node ? 'Save node' : 'Add node'}
        </button>
        <button type="button" className="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  )
}
