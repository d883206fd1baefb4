import { type FormEvent, useState } from 'react'
import { FieldError, FormProblem } from '../../components/form-problem'
import { ItemsEditor } from './items-editor'
import { type Release, type ReleaseItem, SEVERITIES, type Severity } from './release-types'

/** What the release form submits: every editable field of a release. */
export interface ReleaseDraft {
  version: string
  title: string
  severity: Severity
  summary: string | null
  phase: string | null
  items: ReleaseItem[]
}

/** The fields of a release (version locked once published), with the panel's messages beside them. */
export function ReleaseForm({
  release,
  label,
  pending,
  error,
  onSubmit,
}: {
  release?: Release
  label: string
  pending: boolean
  error: unknown
  onSubmit: (draft: ReleaseDraft) => void
}) {
  const [version, setVersion] = useState(release?.version ?? '')
  const [title, setTitle] = useState(release?.title ?? '')
  const [severity, setSeverity] = useState<Severity>(release?.severity ?? 'minor')
  const [summary, setSummary] = useState(release?.summary ?? '')
  const [phase, setPhase] = useState(release?.phase ?? '')
  const [items, setItems] = useState<ReleaseItem[]>(release?.items ?? [])
  const versionLocked = release !== undefined && release.state === 'published'
  const submit = (event: FormEvent) => {
    event.preventDefault()
    onSubmit({
      version,
      title,
      severity,
      summary: summary.trim() === '' ? null : summary,
      phase: phase.trim() === '' ? null : phase,
      items,
    })
  }
  const itemPaths = items.flatMap((_, index) => [`items.${index}.text`, `items.${index}`])
  return (
    <form onSubmit={submit} aria-label={label}>
      <label>
        Version
        <input
          type="text"
          value={version}
          onChange={(e) => setVersion(e.target.value)}
          required
          disabled={versionLocked}
          aria-describedby="version-hint"
        />
        <span className="hint" id="version-hint">
          {versionLocked ? 'The version changes only on a draft.' : 'Semver, e.g. 1.4.0'}
        </span>
        <FieldError error={error} field="version" />
      </label>
      <label>
        Title
        <input
          type="text"
          value={title}
          onChange={(e) => setTitle(e.target.value)}
          required
          maxLength={200}
        />
        <FieldError error={error} field="title" />
      </label>
      <label>
        Severity
        <select value={severity} onChange={(e) => setSeverity(e.target.value as Severity)}>
          {SEVERITIES.map((option) => (
            <option key={option}>{option}</option>
          ))}
        </select>
        <FieldError error={error} field="severity" />
      </label>
      <label>
        Summary
        <textarea rows={3} value={summary} onChange={(e) => setSummary(e.target.value)} maxLength={2000} />
        <span className="hint">Plain text on one line: no markup, markdown or HTML</span>
        <FieldError error={error} field="summary" />
      </label>
      <label>
        Phase
        <input type="text" value={phase} onChange={(e) => setPhase(e.target.value)} />
        <FieldError error={error} field="phase" />
      </label>
      <ItemsEditor items={items} onChange={setItems} error={error} />
      <button type="submit" disabled={pending}>
        {label}
      </button>
      <FormProblem
        error={error}
        fields={['version', 'title', 'severity', 'summary', 'phase', 'items', ...itemPaths]}
      />
    </form>
  )
}
