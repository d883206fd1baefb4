import { keepPreviousData, useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { useSearchParams } from 'wouter'
import { api, problemOf } from '../../api'
import { QueryProblem } from '../../components/query-problem'
import { SearchBox } from '../../components/search-box'
import { AuditFiltersForm } from './audit-filters'
import { AuditTable } from './audit-table'
import { type AuditFilters, filtersOf, inputOf, searchOf } from './types'

const FILTER_FIELDS = ['action', 'targetId', 'limit', 'search']

/** The audit log (audit:view), newest first: filter by action and target, page back with the cursor. */
export function AuditPage() {
  const [params, setParams] = useSearchParams()
  const filters = filtersOf(params)
  const filterKey = JSON.stringify(filters)
  // The cursors of the pages after the first, for these filters only: new filters start at the newest entry.
  const [paging, setPaging] = useState<{ key: string; cursors: string[] }>({ key: filterKey, cursors: [] })
  const cursors = paging.key === filterKey ? paging.cursors : []
  const cursor = cursors.at(-1)
  const page = useQuery({
    queryKey: ['audit.list', filters, cursor],
    queryFn: () => api.audit.list(inputOf(filters, cursor)),
    placeholderData: keepPreviousData,
  })
  const apply = (next: AuditFilters) => setParams(searchOf({ search: filters.search, ...next }))
  const goTo = (next: string[]) => setPaging({ key: filterKey, cursors: next })
  const entries = page.data?.entries ?? []
  const actions = [...new Set(entries.map((entry) => entry.action))].sort()
  // A refused filter (400) is shown next to its field; anything else above the table.
  const invalid = (problemOf(page.error)?.issues ?? []).some((issue) => FILTER_FIELDS.includes(issue.path))
  const first = cursors.length * filters.limit + 1
  return (
    <section>
      <h1>Audit log</h1>
      <SearchBox
        label="Search entries"
        placeholder="action, actor, target"
        value={filters.search ?? ''}
        onSearch={(search) => apply({ ...filters, search })}
      />
      <AuditFiltersForm filters={filters} actions={actions} error={page.error} onApply={apply} />
      {page.isPending && <p className="loading">Loading the audit log…</p>}
      {!invalid && <QueryProblem error={page.error} what="the audit log" />}
      <p aria-live="polite" className="note">
        {page.data &&
          (entries.length === 0
            ? 'No entry matches.'
            : `Entries ${first}–${first + entries.length - 1}, newest first (page ${cursors.length + 1}).`)}
      </p>
      {entries.length > 0 && (
        <AuditTable
          entries={entries}
          busy={page.isPlaceholderData}
          hrefFor={(filter) => `/audit?${new URLSearchParams(searchOf({ ...filters, ...filter }))}`}
        />
      )}
      {(entries.length > 0 || cursors.length > 0) && (
        <nav aria-label="Audit log pages" className="actions">
          <button
            type="button"
            className="secondary"
            disabled={cursors.length === 0}
            onClick={() => goTo([])}
          >
            Newest
          </button>
          <button
            type="button"
            className="secondary"
            disabled={cursors.length === 0}
            onClick={() => goTo(cursors.slice(0, -1))}
          >
            Newer
          </button>
          <button
            type="button"
            className="secondary"
            disabled={!page.data?.nextCursor || page.isPlaceholderData}
            onClick={() => page.data?.nextCursor && goTo([...cursors, page.data.nextCursor])}
          >
            Older
          </button>
        </nav>
      )}
    </section>
  )
}
