import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { type FormEvent, useState } from 'react'
import { api, errorText } from '../../api'
import { FieldError, FormProblem } from '../../components/form-problem'
import { TimeStamp } from '../../components/time-stamp'
import { useSession } from '../../session'
import { ChangelogTabs } from './changelog-tabs'
import type { Mirror } from './release-types'

const KEY = ['changelog.mirror.get']

function UpstreamForm({ mirror }: { mirror: Mirror }) {
  const [upstream, setUpstream] = useState(mirror.upstream ?? '')
  const queryClient = useQueryClient()
  const set = useMutation({
    mutationFn: (value: string | null) => api.changelog.mirror.set({ upstream: value }),
    onSuccess: (saved) => queryClient.setQueryData(KEY, saved),
  })
  const submit = (event: FormEvent) => {
    event.preventDefault()
    set.mutate(upstream.trim() === '' ? null : upstream.trim())
  }
  return (
    <form onSubmit={submit} aria-label="Mirror upstream">
      <label>
        Upstream feed URL
        <input
          type="url"
          value={upstream}
          onChange={(e) => setUpstream(e.target.value)}
          aria-describedby="upstream-hint"
        />
        <span className="hint" id="upstream-hint">
          Another panel's /api/v1/meta/changelog. Changing or clearing it deletes the mirrored releases; empty
          means no mirror and no outbound request.
        </span>
        <FieldError error={set.error} field="upstream" />
      </label>
      <button type="submit" disabled={set.isPending}>
        Save upstream
      </button>
      <FormProblem error={set.error} fields={['upstream']} />
    </form>
  )
}

function PullNow() {
  const queryClient = useQueryClient()
  const pull = useMutation({
    mutationFn: () => api.changelog.mirror.pull({}),
    onSuccess: async ({ added, updated, removed, skipped, ...state }) => {
      queryClient.setQueryData(KEY, state)
      await queryClient.invalidateQueries({ queryKey: ['changelog.releases.list'] })
    },
  })
  return (
    <div>
      <button type="button" disabled={pull.isPending} onClick={() => pull.mutate()}>
        Pull now
      </button>
      <p aria-live="polite">
        {pull.isPending && 'Pulling…'}
        {pull.data &&
          `Pulled: ${pull.data.added} added, ${pull.data.updated} updated, ${pull.data.removed} removed` +
            (pull.data.skipped.length > 0
              ? `, skipped (a local release wins): ${pull.data.skipped.join(', ')}`
              : '')}
      </p>
      <FormProblem error={pull.error} />
    </div>
  )
}

/** Mirror another panel's changelog: the upstream, the last pull and a manual pull. */
export function MirrorPage() {
  const { can } = useSession()
  const mirror = useQuery({ queryKey: KEY, queryFn: () => api.changelog.mirror.get({}) })
  return (
    <section>
      <h1>Changelog mirror</h1>
      <ChangelogTabs />
      {mirror.isError && <p role="alert">{errorText(mirror.error)}</p>}
      {mirror.data && (
        <>
          <dl className="settings">
            <div>
              <dt>Upstream</dt>
              <dd>{mirror.data.upstream ?? 'none'}</dd>
            </div>
            <div>
              <dt>Last pull</dt>
              <dd data-testid="mirror-last-pull">
                {mirror.data.lastPulledAt ? (
                  <>
                    <TimeStamp iso={mirror.data.lastPulledAt} />: {mirror.data.lastStatus ?? ''}
                  </>
                ) : (
                  'never'
                )}
              </dd>
            </div>
            {mirror.data.lastError && (
              <div>
                <dt>Last error</dt>
                <dd>{mirror.data.lastError}</dd>
              </div>
            )}
          </dl>
          <p className="note">The panel pulls every 10 minutes while an upstream is set.</p>
          {can('settings:edit') && (
            <>
              <UpstreamForm key={mirror.data.upstream ?? ''} mirror={mirror.data} />
              {mirror.data.upstream && <PullNow />}
            </>
          )}
        </>
      )}
    </section>
  )
}
