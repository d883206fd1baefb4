import { type JobFilters, type JobKind, type JobState, KIND_LABELS, STATE_LABELS } from './types'

/** The state and kind filters; each change applies at once. */
export function JobFiltersForm({
  filters,
  onApply,
}: {
  filters: JobFilters
  onApply: (filters: JobFilters) => void
}) {
  return (
    <form aria-label="Filter the jobs" className="filters" onSubmit={(event) => event.preventDefault()}>
      <label>
        State
        <select
          name="state"
          value={filters.state}
          onChange={(event) => onApply({ ...filters, state: event.target.value as JobState | '' })}
        >
          <option value="">any state</option>
          {Object.entries(STATE_LABELS).map(([state, label]) => (
            <option key={state} value={state}>
              {label}
            </option>
          ))}
        </select>
      </label>
      <label>
        Kind
        <select
          name="kind"
          value={filters.kind}
          onChange={(event) => onApply({ ...filters, kind: event.target.value as JobKind | '' })}
        >
          <option value="">any kind</option>
          {Object.entries(KIND_LABELS).map(([kind, label]) => (
            <option key={kind} value={kind}>
              {label}
            </option>
          ))}
        </select>
      </label>
    </form>
  )
}
