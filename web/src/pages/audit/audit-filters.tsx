import type { FormEvent } from 'react'
import { FieldError } from '../../components/form-problem'
import { type AuditFilters, DEFAULT_PAGE_SIZE, PAGE_SIZES } from './types'

/** The filters audit.list accepts; the panel's objections to them (a too-long action) are shown by each field. */
export function AuditFiltersForm({
  filters,
  actions,
  error,
  onApply,
}: {
  filters: AuditFilters
  /** Actions seen so far, offered as suggestions. */
  actions: readonly string[]
  error: unknown
  onApply: (filters: AuditFilters) => void
}) {
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = new FormData(event.currentTarget)
    onApply({
      action: String(form.get('action') ?? '').trim(),
      targetId: String(form.get('targetId') ?? '').trim(),
      limit: Number(form.get('limit')) || DEFAULT_PAGE_SIZE,
    })
  }
  const sizes = PAGE_SIZES.some((size) => size === filters.limit)
    ? PAGE_SIZES
    : [...PAGE_SIZES, filters.limit]
  return (
    // Keyed by the filters, so the inputs show them again after a link or the back button changed the URL.
    <form
      key={`${filters.action}|${filters.targetId}|${filters.limit}`}
      onSubmit={submit}
      aria-label="Filter the audit log"
      className="filters"
    >
      <label>
        Action
        <input name="action" defaultValue={filters.action} list="audit-actions" placeholder="user.create" />
        <datalist id="audit-actions">
          {actions.map((action) => (
            <option key={action} value={action} />
          ))}
        </datalist>
        <FieldError error={error} field="action" />
      </label>
      <label>
        Target id
        <input name="targetId" defaultValue={filters.targetId} />
        <FieldError error={error} field="targetId" />
      </label>
      <label>
        Entries per page
        <select name="limit" defaultValue={filters.limit}>
          {sizes.map((size) => (
            <option key={size} value={size}>
              {size}
            </option>
          ))}
        </select>
        <FieldError error={error} field="limit" />
      </label>
      <div className="actions">
        <button type="submit">Show entries</button>
        <button
          type="button"
          className="secondary"
          onClick={() => onApply({ action: '', targetId: '', limit: filters.limit })}
        >
          Clear filters
        </button>
      </div>
    </form>
  )
}
