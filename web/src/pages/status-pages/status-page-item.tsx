import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { Link } from 'wouter'
import { api } from '../../api'
import { ConfirmButton } from '../../components/confirm-button'
import { CopyButton } from '../../components/copy-button'
import { FormProblem } from '../../components/form-problem'
import { LIST_KEY } from './create-status-page-form'
import { StatusPageForm, type StatusPageValues } from './status-page-form'

export type StatusPage = Awaited<ReturnType<typeof api.statusPages.get>>

/** The page's three public addresses: the HTML page (its `url`), its JSON and its badge, beside it on the panel. */
export function publicAddresses(page: Pick<StatusPage, 'url' | 'slug'>) {
  const api = `${new URL(page.url).origin}/api/v1/status/${page.slug}`
  return [
    { what: 'Page', copy: 'Copy page address', url: page.url },
    { what: 'JSON', copy: 'Copy JSON address', url: api },
    { what: 'Badge', copy: 'Copy badge address', url: `${api}/badge.svg` },
  ]
}

function Addresses({ page }: { page: StatusPage }) {
  return (
    <dl className="addresses">
      {publicAddresses(page).map(({ what, copy, url }) => (
        <div key={what}>
          <dt>{what}</dt>
          <dd>
            <a href={url}>{url}</a> <CopyButton text={url} label={copy} />
          </dd>
        </div>
      ))}
    </dl>
  )
}

function EditForm({ page, onDone }: { page: StatusPage; onDone: () => void }) {
  const queryClient = useQueryClient()
  const update = useMutation({
    mutationFn: ({ description, ...values }: StatusPageValues) =>
      api.statusPages.update({ id: page.id, ...values, description: description.trim() || null }),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: LIST_KEY })
      onDone()
    },
  })
  return (
    <StatusPageForm
      heading={`Edit ${page.title}`}
      initial={{ ...page, description: page.description ?? '' }}
      submitText="Save status page"
      pending={update.isPending}
      error={update.error}
      onSubmit={(values) => update.mutate(values)}
      onCancel={onDone}
    />
  )
}

/** One status page: title, visibility, groups, its addresses to copy and, for probes:manage, edit and remove. */
export function StatusPageItem({ page, canEdit }: { page: StatusPage; canEdit: boolean }) {
  const [editing, setEditing] = useState(false)
  const queryClient = useQueryClient()
  const refresh = () => queryClient.invalidateQueries({ queryKey: LIST_KEY })
  const visibility = useMutation({
    mutationFn: () => api.statusPages.update({ id: page.id, public: !page.public }),
    onSuccess: refresh,
  })
  const remove = useMutation({
    mutationFn: () => api.statusPages.remove({ id: page.id }),
    onSuccess: refresh,
  })
  const probeCount = page.groups.reduce((sum, group) => sum + group.probes.length, 0)
  return (
    <li className="card" data-status-page={page.slug}>
      <h3>{page.title}</h3>
      <p data-testid="status-page-facts">
        {page.public ? 'Public' : 'Private: the addresses answer 404 until it is made public'} ·{' '}
        {page.groups.length === 1 ? '1 group' : `${page.groups.length} groups`} ·{' '}
        {probeCount === 1 ? '1 probe' : `${probeCount} probes`}
        {page.autoIncidents ? ' · automatic incidents' : ''}
      </p>
      {page.description && <p className="note">{page.description}</p>}
      <Addresses page={page} />
      {canEdit &&
        (editing ? (
          <EditForm page={page} onDone={() => setEditing(false)} />
        ) : (
          <>
            <div className="actions">
              <Link href={`/monitoring/status-pages/${page.id}`}>
                Incidents<span className="visually-hidden"> of {page.title}</span>
              </Link>
              <button type="button" className="secondary" onClick={() => setEditing(true)}>
                Edit<span className="visually-hidden"> {page.title}</span>
              </button>
              <button
                type="button"
                className="secondary"
                disabled={visibility.isPending}
                onClick={() => visibility.mutate()}
              >
                {page.public ? 'Make private' : 'Make public'}
                <span className="visually-hidden"> {page.title}</span>
              </button>
              <ConfirmButton
                label={`Remove ${page.title}`}
                confirmLabel={`Yes, remove ${page.title}`}
                text="Remove"
                confirmText="Yes, remove"
                onConfirm={() => remove.mutate()}
                pending={remove.isPending}
              />
            </div>
            <FormProblem error={visibility.error ?? remove.error} fields={[]} />
          </>
        ))}
    </li>
  )
}
