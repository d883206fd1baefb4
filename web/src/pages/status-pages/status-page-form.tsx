import { useQuery } from '@tanstack/react-query'
import { type FormEvent, useState } from 'react'
import { api } from '../../api'
import { FieldError, FormProblem } from '../../components/form-problem'
import { type GroupDraft, GroupsEditor, newGroup, sentGroups } from './groups-editor'

/** What the form collects; `groups` drops the drafts' keys. */
export interface StatusPageValues {
  slug: string
  title: string
  description: string
  public: boolean
  autoIncidents: boolean
  groups: { name: string; probes: { probeId: string; displayName: string }[] }[]
}

const FIELDS = ['slug', 'title', 'description']

/**
 * A status page's fields: slug, title, description, its groups (each a name and probes under public names) and
 * whether it is public. Used to add a page and to edit one; `initial` fills it, `onSubmit` sends it.
 */
export function StatusPageForm({
  heading,
  initial,
  submitText,
  pending,
  error,
  onSubmit,
  onCancel,
}: {
  heading: string
  initial: StatusPageValues
  submitText: string
  pending: boolean
  error: unknown
  onSubmit: (values: StatusPageValues) => void
  onCancel?: () => void
}) {
  const [slug, setSlug] = useState(initial.slug)
  const [title, setTitle] = useState(initial.title)
  const [description, setDescription] = useState(initial.description)
  const [isPublic, setPublic] = useState(initial.public)
  const [autoIncidents, setAutoIncidents] = useState(initial.autoIncidents)
  const [groups, setGroups] = useState<GroupDraft[]>(() =>
    initial.groups.length
      ? initial.groups.map((group) => ({ ...newGroup(group.name), probes: group.probes }))
      : [newGroup('Services')],
  )
  const probes = useQuery({
    queryKey: ['probes.list', 'status-page-form'],
    queryFn: () => api.probes.list({ limit: 500 }),
  })
  // A probe archived since the page was saved is not listed any more; keep it in the group under its id.
  const listed = probes.data ?? []
  const known = new Set(listed.map((probe) => probe.id))
  const kept = groups
    .flatMap((group) => group.probes)
    .filter((probe) => !known.has(probe.probeId))
    .map((probe) => ({ id: probe.probeId, name: probe.displayName }))
  const submit = (event: FormEvent) => {
    event.preventDefault()
    onSubmit({
      slug,
      title,
      description,
      public: isPublic,
      autoIncidents,
      groups: sentGroups(groups).map(({ name, probes: shown }) => ({ name, probes: shown })),
    })
  }
  const id = heading.toLowerCase().replace(/[^a-z0-9]+/g, '-')
  return (
    <form onSubmit={submit} aria-labelledby={id}>
      <h2 id={id}>{heading}</h2>
      <label>
        Slug
        <input
          value={slug}
          onChange={(e) => setSlug(e.target.value)}
          required
          aria-describedby={`${id}-slug-hint`}
        />
        <span className="hint" id={`${id}-slug-hint`}>
          Lowercase letters, digits and hyphens: the page is served at /status/&lt;slug&gt;.
        </span>
        <FieldError error={error} field="slug" />
      </label>
      <label>
        Title
        <input value={title} onChange={(e) => setTitle(e.target.value)} required />
        <FieldError error={error} field="title" />
      </label>
      <label>
        Description
        <input value={description} onChange={(e) => setDescription(e.target.value)} />
        <FieldError error={error} field="description" />
      </label>
      <GroupsEditor groups={groups} probes={[...listed, ...kept]} error={error} onChange={setGroups} />
      <label className="check">
        <input type="checkbox" checked={isPublic} onChange={(e) => setPublic(e.target.checked)} />
        Public (anyone may read the page, its JSON and its badge)
      </label>
      <label className="check">
        <input type="checkbox" checked={autoIncidents} onChange={(e) => setAutoIncidents(e.target.checked)} />
        Open an incident automatically when a listed probe goes down (resolved when it is back)
      </label>
      <div className="actions">
        <button type="submit" disabled={pending}>
          {submitText}
        </button>
        {onCancel && (
          <button type="button" className="secondary" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
      <FormProblem
        error={error}
        fields={[...FIELDS, ...sentGroups(groups).map((_group, index) => `groups.${index}.name`)]}
      />
    </form>
  )
}
