import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { type FormEvent, useState } from 'react'
import { api } from '../../api'
import { ConfirmButton } from '../../components/confirm-button'
import { FieldError, FormProblem } from '../../components/form-problem'
import { LoadMore } from '../../components/load-more'
import { QueryProblem } from '../../components/query-problem'
import { useArrayPages } from '../../paged-list'
import { useSession } from '../../session'
import type { NodeRow } from './types'

function CreateInstanceForm({ nodes, onDone }: { nodes: NodeRow[]; onDone: () => void }) {
  const queryClient = useQueryClient()
  const hosts = nodes.filter((node) => node.roles.includes('host'))
  const create = useMutation({
    mutationFn: (input: { nodeId: string; name: string; address: string }) => api.instances.create(input),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ['instances.list'] })
      onDone()
    },
  })
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = new FormData(event.currentTarget)
    const text = (name: string) => String(form.get(name) ?? '').trim()
    create.mutate({ nodeId: text('nodeId'), name: text('name'), address: text('address') })
  }
  if (hosts.length === 0) return <p className="note">Add a host node first: instances run on host nodes.</p>
  return (
    <form onSubmit={submit} aria-label="Add an instance">
      <label>
        Node
        <select name="nodeId" required>
          {hosts.map((node) => (
            <option key={node.id} value={node.id}>
              {node.name}
            </option>
          ))}
        </select>
        <FieldError error={create.error} field="nodeId" />
      </label>
      <label>
        Name
        <input name="name" required maxLength={100} />
        <FieldError error={create.error} field="name" />
      </label>
      <label>
        Address (the instance's address as the node reaches it)
        <input name="address" required maxLength={255} placeholder="10.0.0.12" />
        <FieldError error={create.error} field="address" />
      </label>
      <FormProblem error={create.error} fields={['nodeId', 'name', 'address']} />
      <div className="actions">
        <button type="submit" disabled={create.isPending}>
          Add instance
        </button>
        <button type="button" className="secondary" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  )
}

/** The instances: list, create on a host node, remove (409 while it has sites or routes). */
export function InstancesSection() {
  const { can } = useSession()
  const manage = can('fleet:manage')
  const queryClient = useQueryClient()
  const [adding, setAdding] = useState(false)
  const instances = useArrayPages(['instances.list'], (page) => api.instances.list(page))
  const nodes = useQuery({
    queryKey: ['nodes.list', 'lookup'],
    queryFn: () => api.nodes.list({ limit: 500 }),
  })
  const nodeName = (id: string) => nodes.data?.find((node) => node.id === id)?.name ?? id
  const remove = useMutation({
    mutationFn: (id: string) => api.instances.remove({ id }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['instances.list'] }),
  })
  return (
    <section aria-labelledby="instances-heading">
      <h2 id="instances-heading">Instances</h2>
      <QueryProblem error={instances.error} what="the instances" />
      {instances.rows?.length === 0 && <p className="note">No instance yet.</p>}
      {instances.rows && instances.rows.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Node</th>
              <th scope="col">Address</th>
              {manage && <th scope="col">Actions</th>}
            </tr>
          </thead>
          <tbody>
            {instances.rows.map((instance) => (
              <tr key={instance.id}>
                <td>{instance.name}</td>
                <td>{nodeName(instance.nodeId)}</td>
                <td>
                  <code>{instance.address}</code>
                </td>
                {manage && (
                  <td>
                    <ConfirmButton
                      label={`Remove instance ${instance.name}`}
                      confirmLabel={`Yes, remove ${instance.name}`}
                      text="Remove"
                      confirmText="Yes, remove"
                      pending={remove.isPending}
                      onConfirm={() => remove.mutate(instance.id)}
                    />
                    {remove.variables === instance.id && <FormProblem error={remove.error} />}
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <LoadMore pages={instances} what="instances" />
      {manage &&
        (adding ? (
          <div className="panel">
            <CreateInstanceForm nodes={nodes.data ?? []} onDone={() => setAdding(false)} />
          </div>
        ) : (
          <button type="button" onClick={() => setAdding(true)}>
            Add an instance
          </button>
        ))}
    </section>
  )
}
