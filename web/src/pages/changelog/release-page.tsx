import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { Link, useLocation, useParams } from 'wouter'
import { api, errorText, problemOf } from '../../api'
import { FieldError, FormProblem } from '../../components/form-problem'
import { ChangelogTabs } from './changelog-tabs'
import { ItemList } from './item-list'
import { type ReleaseDraft, ReleaseForm } from './release-form'
import type { Release } from './release-types'
import { TranslationsSection } from './translations-section'

function useReleaseWrite<I>(release: Release, call: (input: I) => Promise<Release>) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: call,
    onSuccess: async (updated) => {
      queryClient.setQueryData(['changelog.releases.get', release.id], updated)
      await queryClient.invalidateQueries({ queryKey: ['changelog.releases.list'] })
    },
  })
}

function Publishing({ release }: { release: Release }) {
  const [date, setDate] = useState('')
  const [confirmRemove, setConfirmRemove] = useState(false)
  const [, navigate] = useLocation()
  const publish = useReleaseWrite(release, () =>
    api.changelog.releases.publish({ id: release.id, ...(date === '' ? {} : { date }) }),
  )
  const unpublish = useReleaseWrite(release, () => api.changelog.releases.unpublish({ id: release.id }))
  const remove = useMutation({
    mutationFn: () => api.changelog.releases.remove({ id: release.id }),
    onSuccess: () => navigate('/changelog'),
  })
  return (
    <section aria-labelledby="publishing-heading">
      <h2 id="publishing-heading">Publishing</h2>
      {release.state === 'draft' ? (
        <div className="actions">
          <label className="inline">
            Date (optional)
            <input
              type="date"
              value={date}
              onChange={(e) => setDate(e.target.value)}
              aria-describedby="date-hint"
            />
            <span className="hint" id="date-hint">
              Default: today (UTC)
            </span>
            <FieldError error={publish.error} field="date" />
          </label>
          <button type="button" disabled={publish.isPending} onClick={() => publish.mutate(undefined)}>
            Publish release
          </button>
          {confirmRemove ? (
            <button
              type="button"
              className="danger"
              disabled={remove.isPending}
              onClick={() => remove.mutate()}
            >
              Remove this draft for good
            </button>
          ) : (
            <button type="button" className="danger" onClick={() => setConfirmRemove(true)}>
              Remove draft…
            </button>
          )}
        </div>
      ) : (
        <div className="actions">
          <p>
            Published {release.date}. Publishing notified the changelog webhooks; unpublishing skips
            deliveries not yet made, and publishing again notifies them again.
          </p>
          <button
            type="button"
            className="secondary"
            disabled={unpublish.isPending}
            onClick={() => unpublish.mutate(undefined)}
          >
            Unpublish release
          </button>
        </div>
      )}
      <FormProblem error={publish.error ?? unpublish.error ?? remove.error} fields={['date']} />
    </section>
  )
}

function Editing({ release }: { release: Release }) {
  const [editing, setEditing] = useState(false)
  const update = useReleaseWrite(release, (draft: ReleaseDraft) =>
    api.changelog.releases.update({
      id: release.id,
      ...draft,
      ...(release.state === 'published' ? { version: undefined } : {}),
    }),
  )
  return (
    <section aria-labelledby="edit-heading">
      <h2 id="edit-heading">Content</h2>
      {editing ? (
        <ReleaseForm
          release={release}
          label="Save release"
          pending={update.isPending}
          error={update.error}
          onSubmit={(draft) => update.mutate(draft, { onSuccess: () => setEditing(false) })}
        />
      ) : (
        <>
          {release.summary && <p>{release.summary}</p>}
          <ItemList items={release.items} />
          <button type="button" onClick={() => setEditing(true)}>
            Edit release
          </button>
        </>
      )}
    </section>
  )
}

/** One release: its content, publishing and translations. Mirrored releases are read-only. */
export function ReleasePage() {
  const { id = '' } = useParams<{ id: string }>()
  const release = useQuery({
    queryKey: ['changelog.releases.get', id],
    queryFn: () => api.changelog.releases.get({ id }),
  })
  if (release.isPending) return <p className="loading">Loading…</p>
  if (release.isError)
    return (
      <section>
        <h1>Release</h1>
        <p role="alert">
          {problemOf(release.error)?.code === 'not_found' ? 'No such release.' : errorText(release.error)}{' '}
          <Link href="/changelog">Back to the releases</Link>
        </p>
      </section>
    )
  const data = release.data
  const mirrored = data.source === 'mirror'
  return (
    <section>
      <h1>
        {data.version}: {data.title}
      </h1>
      <ChangelogTabs />
      <p aria-live="polite" data-testid="release-state">
        {data.state} · {data.severity}
        {data.phase ? ` · ${data.phase}` : ''}
        {mirrored ? ' · mirrored from the upstream panel (read-only)' : ''}
      </p>
      {mirrored ? (
        <ItemList items={data.items} />
      ) : (
        <>
          <Editing release={data} />
          <Publishing release={data} />
        </>
      )}
      <TranslationsSection release={data} editable={!mirrored} />
    </section>
  )
}
