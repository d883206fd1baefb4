import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { api } from '../../api'
import { ConfirmButton } from '../../components/confirm-button'
import { FormProblem } from '../../components/form-problem'
import { LoadMore } from '../../components/load-more'
import { QueryProblem } from '../../components/query-problem'
import { useArrayPages } from '../../paged-list'
import { useSession } from '../../session'
import { NodeForm } from './node-form'
import { NodeHealth } from './node-health'
import type { NodeRow, NodeSave } from './types'

/** The nodes with their agent health: list, enrol, edit, remove (the 409 reasons shown on the row). */
export function NodesSection() {
  const { can } = useSession()
  const manage = can('fleet:manage')
  const queryClient = useQueryClient()
  const [editing, setEditing] = useState<string | null>(null)
  // Health is checked every minute.
  const nodes = useArrayPages(['nodes.list'], (page) => api.nodes.list(page), { refetchInterval: 60_000 })
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['nodes.list'] })
  const save = useMutation({
    mutationFn: (save: NodeSave) =>
      save.kind === 'create' ? api.nodes.create(save.input) : api.nodes.update(save.input),
    onSuccess: () => {
      setEditing(null)
      return refresh()
    },
  })
  const remove = useMutation({
    mutationFn: (id: string) => api.nodes.remove({ id }),
    onSuccess: refresh,
  })
  const open = (id: string | null) => {
    save.reset()
    setEditing(id)
  }
  const form = (node: NodeRow | null) => (
    <NodeForm
      node={node}
      error={save.error}
      pending={save.isPending}
      onSubmit={(input) => save.mutate(input)}
      onCancel={() => open(null)}
    />
  )
  return (
    <section aria-labelledby="nodes-heading">
      <h2 id="nodes-heading">Nodes</h2>
      <QueryProblem error={nodes.error} what="the nodes" />
      {nodes.rows?.length === 0 && <p className="note">No node yet.</p>}
      {nodes.rows && nodes.rows.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Role</th>
              <th scope="col">Agent URL</th>
              <th scope="col">Addresses</th>
              <th scope="col">DNS target</th>
              <th scope="col">Health</th>
              {manage && <th scope="col">Actions</th>}
            </tr>
          </thead>
          <tbody>
            {nodes.rows.map((node) => (
              <tr key={node.id}>
                <td>{node.name}</td>
                <td>{node.roles.join(', ')}</td>
                <td>
                  <code>{node.agentUrl}</code>
                </td>
                <td>{[node.publicIpv4, node.publicIpv6].filter(Boolean).join(', ') || '—'}</td>
                <td>{node.dnsTarget ?? '—'}</td>
                <td>
                  <NodeHealth health={node.health} />
                </td>
                {manage && (
                  <td>
                    <div className="actions">
                      <button
                        type="button"
                        className="secondary"
                        onClick={() => open(node.id)}
                        aria-label={`Edit node ${node.name}`}
                      >
                        Edit
                      </button>
                      <ConfirmButton
                        label={`Remove node ${node.name}`}
                        confirmLabel={`Yes, remove ${node.name}`}
                        text="Remove"
                        confirmText="Yes, remove"
                        pending={remove.isPending}
                        onConfirm={() => remove.mutate(node.id)}
                      />
                    </div>
                    {remove.variables === node.id && <FormProblem error={remove.error} />}
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <LoadMore pages={nodes} what="nodes" />
      {manage && editing && editing !== 'new' && (
        <div className="panel">{form(nodes.rows?.find((node) => node.id === editing) ?? null)}</div>
      )}
      {manage &&
        (editing === 'new' ? (
          <div className="panel">{form(null)}</div>
        ) : (
          <button type="button" onClick={() => open('new')}>
            Add a node
          </button>
        ))}
    </section>
  )
}
