import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { type FormEvent, useState } from 'react'
import { api } from '../../api'
import { FieldError, FormProblem } from '../../components/form-problem'

export const LIST_KEY = ['statusPages.list']

/** A new status page: its address, title, one group of the probes ticked (each under a display name), public or not. */
export function CreateStatusPageForm() {
  const [slug, setSlug] = useState('')
  const [title, setTitle] = useState('')
  const [description, setDescription] = useState('')
  const [groupName, setGroupName] = useState('Services')
  const [isPublic, setPublic] = useState(true)
  const [chosen, setChosen] = useState<Record<string, string>>({})
  const probes = useQuery({
    queryKey: ['probes.list', 'status-page-form'],
    queryFn: () => api.probes.list({ limit: 500 }),
  })
  const queryClient = useQueryClient()
  const create = useMutation({
    mutationFn: () => {
      const listed = Object.entries(chosen).map(([probeId, displayName]) => ({ probeId, displayName }))
      return api.statusPages.create({
        slug,
        title,
        ...(description ? { description } : {}),
        public: isPublic,
        groups: listed.length ? [{ name: groupName, probes: listed }] : [],
      })
    },
    onSuccess: async () => {
      setSlug('')
      setTitle('')
      setDescription('')
      setChosen({})
      await queryClient.invalidateQueries({ queryKey: LIST_KEY })
    },
  })
  const submit = (event: FormEvent) => {
    event.preventDefault()
    create.mutate()
  }
  const toggle = (id: string, name: string, on: boolean) =>
    setChosen((now) => {
      const next = { ...now }
      if (on) next[id] = name
      else delete next[id]
      return next
    })
  return (
    <form onSubmit={submit} aria-labelledby="add-status-page-heading">
      <h2 id="add-status-page-heading">Add a status page</h2>
      <label>
        Slug
        <input value={slug} onChange={(e) => setSlug(e.target.value)} required aria-describedby="slug-hint" />
        <span className="hint" id="slug-hint">
          Lowercase letters, digits and hyphens: the page is served at /status/&lt;slug&gt;.
        </span>
        <FieldError error={create.error} field="slug" />
      </label>
      <label>
        Title
        <input value={title} onChange={(e) => setTitle(e.target.value)} required />
        <FieldError error={create.error} field="title" />
      </label>
      <label>
        Description
        <input value={description} onChange={(e) => setDescription(e.target.value)} />
      </label>
      <label>
        Group name
        <input value={groupName} onChange={(e) => setGroupName(e.target.value)} required />
      </label>
      <fieldset>
        <legend>Probes shown, each under the name the public sees</legend>
        {probes.data?.length === 0 && <p>No probes yet.</p>}
        {probes.data?.map((probe) => (
          <div key={probe.id} className="actions">
            <label className="check">
              <input
                type="checkbox"
                checked={probe.id in chosen}
                onChange={(e) => toggle(probe.id, probe.name, e.target.checked)}
              />
              {probe.name}
            </label>
            {probe.id in chosen && (
              <input
                aria-label={`Public name of ${probe.name}`}
                value={chosen[probe.id]}
                onChange={(e) => toggle(probe.id, e.target.value, true)}
                required
              />
            )}
          </div>
        ))}
      </fieldset>
      <label className="check">
        <input type="checkbox" checked={isPublic} onChange={(e) => setPublic(e.target.checked)} />
        Public (anyone may read the page, its JSON and its badge)
      </label>
      <button type="submit" disabled={create.isPending}>
        Add status page
      </button>
      <FormProblem error={create.error} fields={['slug', 'title']} />
    </form>
  )
}
