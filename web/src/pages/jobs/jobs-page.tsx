import { useInfiniteQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { useSearchParams } from 'wouter'
import { api } from '../../api'
import { QueryProblem } from '../../components/query-problem'
import { useSession } from '../../session'
import { JobFiltersForm } from './job-filters'
import { JobsTable } from './jobs-table'
import { RetryAnswerNote } from './retry-answer'
import type { RetryAnswer } from './retry-button'
import { filtersOf, inputOf, type JobFilters, searchOf } from './types'

/** Queue jobs that failed (settings:view): filter by state and kind, load older ones, retry a dead one. */
export function JobsPage() {
  const { can } = useSession()
  const [params, setParams] = useSearchParams()
  const filters = filtersOf(params)
  const pages = useInfiniteQuery({
    queryKey: ['jobs.list', filters],
    queryFn: ({ pageParam }) => api.jobs.list(inputOf(filters, pageParam)),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  })
  const [answer, setAnswer] = useState<RetryAnswer | null>(null)
  const jobs = pages.data?.pages.flatMap((page) => page.jobs) ?? []
  const apply = (next: JobFilters) => setParams(searchOf(next))
  return (
    <section>
      <h1>Jobs</h1>
      <p className="note">
        Background work that failed: a job shows here when an attempt fails, and is <strong>dead</strong> once
        its attempts are spent (about a day of retries) or it gave up. Retry sends a dead job again right
        away; a webhook delivery gets a fresh set of attempts.
      </p>
      <JobFiltersForm filters={filters} onApply={apply} />
      {pages.isPending && <p className="loading">Loading the jobs…</p>}
      <QueryProblem error={pages.error} what="the jobs" />
      <p aria-live="polite" className="note">
        {pages.data &&
          (jobs.length === 0
            ? 'No job matches: nothing has failed.'
            : `${jobs.length} ${jobs.length === 1 ? 'job' : 'jobs'} shown, newest last attempt first.`)}
      </p>
      <RetryAnswerNote answer={answer} />
      {jobs.length > 0 && (
        <JobsTable
          jobs={jobs}
          onRetry={can('settings:edit') ? setAnswer : undefined}
          busy={pages.isFetching && !pages.isPending}
        />
      )}
      {pages.hasNextPage && (
        <div className="actions">
          <button
            type="button"
            className="secondary"
            disabled={pages.isFetchingNextPage}
            onClick={() => pages.fetchNextPage()}
          >
            {pages.isFetchingNextPage ? 'Loading…' : 'Load more'}
          </button>
        </div>
      )}
    </section>
  )
}
