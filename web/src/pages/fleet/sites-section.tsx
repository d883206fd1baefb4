import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { type FormEvent, useState } from 'react'
import { Link } from 'wouter'
import { api } from '../../api'
import { ConfirmButton } from '../../components/confirm-button'
import { FieldError, FormProblem } from '../../components/form-problem'
import { LoadMore } from '../../components/load-more'
import { QueryProblem } from '../../components/query-problem'
import { useArrayPages } from '../../paged-list'
import { useSession } from '../../session'
import type { InstanceRow } from './types'

function CreateSiteForm({
  instances,
  labelOf,
  onDone,
}: {
  instances: InstanceRow[]
  /** An instance as the list shows it: its name and its node's. */
  labelOf: (id: string) => string
  onDone: () => void
}) {
  const queryClient = useQueryClient()
  const create = useMutation({
    mutationFn: (input: { instanceId: string; name: string; port?: number }) => api.sites.create(input),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ['sites.list'] })
      onDone()
    },
  })
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = new FormData(event.currentTarget)
    const text = (name: string) => String(form.get(name) ?? '').trim()
    const port = text('port')
    create.mutate({
      instanceId: text('instanceId'),
      name: text('name'),
      ...(port ? { port: Number(port) } : {}),
    })
  }
  if (instances.length === 0) return <p className="note">Add an instance first: sites run on instances.</p>
  return (
    <form onSubmit={submit} aria-label="Add a site">
      <label>
        Instance
        <select name="instanceId" required>
          {instances.map((instance) => (
            <option key={instance.id} value={instance.id}>
              {labelOf(instance.id)}
            </option>
          ))}
        </select>
        <FieldError error={create.error} field="instanceId" />
      </label>
      <label>
        Name
        <input name="name" required maxLength={100} />
        <FieldError error={create.error} field="name" />
      </label>
      <label>
        Port (optional; http routes use 80 without one)
        <input name="port" type="number" min={1} max={65535} />
        <FieldError error={create.error} field="port" />
      </label>
      <FormProblem error={create.error} fields={['instanceId', 'name', 'port']} />
      <div className="actions">
        <button type="submit" disabled={create.isPending}>
          Add site
        </button>
        <button type="button" className="secondary" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  )
}

/** The sites: list (each opens its page), create on an instance, remove (409 while it holds hostnames). */
export function SitesSection() {
  const { can } = useSession()
  const manage = can('fleet:manage')
  const queryClient = useQueryClient()
  const [adding, setAdding] = useState(false)
  const sites = useArrayPages(['sites.list'], (page) => api.sites.list(page))
  const instances = useQuery({
    queryKey: ['instances.list', 'lookup'],
    queryFn: () => api.instances.list({ limit: 500 }),
  })
  const nodes = useQuery({
    queryKey: ['nodes.list', 'lookup'],
    queryFn: () => api.nodes.list({ limit: 500 }),
  })
  // Instance names are unique per node only: the node tells two "app" instances apart.
  const instanceName = (id: string) => {
    const instance = instances.data?.find((row) => row.id === id)
    if (!instance) return id
    const node = nodes.data?.find((row) => row.id === instance.nodeId)
    return `${instance.name} on ${node?.name ?? instance.nodeId}`
  }
  const remove = useMutation({
    mutationFn: (id: string) => api.sites.remove({ id }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['sites.list'] }),
  })
  return (
    <section aria-labelledby="sites-heading">
      <h2 id="sites-heading">Sites</h2>
      <QueryProblem error={sites.error} what="the sites" />
      {sites.rows?.length === 0 && <p className="note">No site yet.</p>}
      {sites.rows && sites.rows.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Instance</th>
              <th scope="col">Port</th>
              {manage && <th scope="col">Actions</th>}
            </tr>
          </thead>
          <tbody>
            {sites.rows.map((site) => (
              <tr key={site.id}>
                <td>
                  <Link href={`/sites/${site.id}`}>{site.name}</Link>
                </td>
                <td>{instanceName(site.instanceId)}</td>
                <td>{site.port ?? '—'}</td>
                {manage && (
                  <td>
                    <ConfirmButton
                      label={`Remove site ${site.name}`}
                      confirmLabel={`Yes, remove ${site.name}`}
                      text="Remove"
                      confirmText="Yes, remove"
                      pending={remove.isPending}
                      onConfirm={() => remove.mutate(site.id)}
                    />
                    {remove.variables === site.id && <FormProblem error={remove.error} />}
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <LoadMore pages={sites} what="sites" />
      {manage &&
        (adding ? (
          <div className="panel">
            <CreateSiteForm
              instances={instances.data ?? []}
              labelOf={instanceName}
              onDone={() => setAdding(false)}
            />
          </div>
        ) : (
          <button type="button" onClick={() => setAdding(true)}>
            Add a site
          </button>
        ))}
    </section>
  )
}
