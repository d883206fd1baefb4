import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { Link, useLocation } from 'wouter'
import { api, errorText } from '../../api'
import { LoadMore } from '../../components/load-more'
import { useArrayPages } from '../../paged-list'
import { useSession } from '../../session'
import { ChangelogTabs } from './changelog-tabs'
import { type ReleaseDraft, ReleaseForm } from './release-form'

type StateFilter = 'all' | 'draft' | 'published'

function ReleasesList() {
  const [state, setState] = useState<StateFilter>('all')
  const releases = useArrayPages(['changelog.releases.list', state], (page) =>
    api.changelog.releases.list(state === 'all' ? page : { ...page, state }),
  )
  return (
    <section aria-labelledby="releases-heading">
      <h2 id="releases-heading">Releases</h2>
      <label className="inline">
        Show
        <select value={state} onChange={(e) => setState(e.target.value as StateFilter)}>
          <option value="all">all releases</option>
          <option value="draft">drafts</option>
          <option value="published">published</option>
        </select>
      </label>
      {releases.isError && <p role="alert">{errorText(releases.error)}</p>}
      {releases.rows?.length === 0 && <p>No releases.</p>}
      {releases.rows && releases.rows.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">Version</th>
              <th scope="col">Title</th>
              <th scope="col">Severity</th>
              <th scope="col">State</th>
              <th scope="col">Date</th>
              <th scope="col">Translations</th>
            </tr>
          </thead>
          <tbody>
            {releases.rows.map((release) => (
              <tr key={release.id} data-release={release.version}>
                <td>
                  <Link href={`/changelog/releases/${release.id}`}>{release.version}</Link>
                  {release.source === 'mirror' && <span className="note"> (mirrored)</span>}
                </td>
                <td>{release.title}</td>
                <td>{release.severity}</td>
                <td data-testid="release-state">{release.state}</td>
                <td>{release.date ?? '—'}</td>
                <td>
                  {Object.entries(release.i18n)
                    .map(([lang, text]) => (text.machine ? `${lang} (machine)` : lang))
                    .join(', ') || '—'}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <LoadMore pages={releases} what="releases" />
    </section>
  )
}

function CreateRelease() {
  const queryClient = useQueryClient()
  const [, navigate] = useLocation()
  const create = useMutation({
    mutationFn: (draft: ReleaseDraft) => api.changelog.releases.create(draft),
    onSuccess: async (release) => {
      await queryClient.invalidateQueries({ queryKey: ['changelog.releases.list'] })
      navigate(`/changelog/releases/${release.id}`)
    },
  })
  return (
    <section aria-labelledby="draft-heading">
      <h2 id="draft-heading">Draft a release</h2>
      <ReleaseForm
        label="Save draft"
        pending={create.isPending}
        error={create.error}
        onSubmit={(draft) => create.mutate(draft)}
      />
    </section>
  )
}

/** The changelog's releases (drafts and published), and a new draft. */
export function ReleasesPage() {
  const { can } = useSession()
  return (
    <section>
      <h1>Changelog</h1>
      <ChangelogTabs />
      {can('changelog:manage') ? (
        <>
          <ReleasesList />
          <CreateRelease />
        </>
      ) : (
        <p>
          Your role cannot manage releases (changelog:manage). The published feed is public at{' '}
          <a href="/api/v1/meta/changelog">/api/v1/meta/changelog</a>.
        </p>
      )}
    </section>
  )
}
