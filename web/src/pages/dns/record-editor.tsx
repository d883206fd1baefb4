import { useMutation } from '@tanstack/react-query'
import { type FormEvent, useId, useState } from 'react'
import { type Api, api, problemOf } from '../../api'
import { FieldError, FormProblem } from '../../components/form-problem'

export type RecordType = Parameters<Api['dnsServers']['zones']['upsertRecord']>[0]['type']
export type RecordWrite = Awaited<ReturnType<Api['dnsServers']['zones']['upsertRecord']>>

export const EDITABLE_TYPES: readonly RecordType[] = ['A', 'AAAA', 'CNAME', 'MX', 'TXT']

const HINTS: Record<RecordType, string> = {
  A: 'one IPv4 address per line',
  AAAA: 'one IPv6 address per line',
  CNAME: 'exactly one host name',
  MX: 'one "<priority> <mail host>" per line, e.g. 10 mail.example.com',
  TXT: 'one text per line (printable ASCII, up to 2048 characters each)',
}

export interface RecordDraft {
  name: string
  type: RecordType
  ttl: number
  values: string[]
}

const FIELDS = ['id', 'name', 'type', 'ttl', 'values'] as const

/** The problems the panel named on single values (`values.2`). */
function valueIssues(error: unknown) {
  return (problemOf(error)?.issues ?? []).filter((i) => /^values\.\d+$/.test(i.path))
}

/** The problems on single values as lines of the text area. */
function ValueLineErrors({ error }: { error: unknown }) {
  const issues = valueIssues(error)
  if (issues.length === 0) return null
  return (
    <div role="alert">
      <ul className="field-error">
        {issues.map((issue) => (
          <li key={issue.path}>
            Line {Number(issue.path.split('.')[1]) + 1}: {issue.message}
          </li>
        ))}
      </ul>
    </div>
  )
}

/**
 * Writes one record set (a name and type) to every box: saving replaces every value of that set, so the text
 * area holds the whole set, not an addition to it.
 */
export function RecordEditor({
  zone,
  initial,
  onWritten,
  onCancel,
}: {
  zone: { id: string; name: string }
  initial: RecordDraft
  onWritten: (result: RecordWrite) => void
  onCancel: () => void
}) {
  const id = useId()
  const [name, setName] = useState(initial.name)
  const [type, setType] = useState<RecordType>(initial.type)
  const [ttl, setTtl] = useState(String(initial.ttl))
  const [values, setValues] = useState(initial.values.join('\n'))
  const upsert = useMutation({
    mutationFn: () =>
      api.dnsServers.zones.upsertRecord({
        id: zone.id,
        name,
        type,
        ttl: Number(ttl),
        values: values.split('\n').filter((line) => line.trim() !== ''),
      }),
    onSuccess: onWritten,
  })
  const submit = (event: FormEvent) => {
    event.preventDefault()
    upsert.mutate()
  }
  return (
    <form onSubmit={submit} aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>Write a record set</h3>
      <p className="note">
        Saving replaces the whole set of this name and type on every box: list every value it should keep.
      </p>
      <label>
        Name
        <input
          value={name}
          onChange={(e) => setName(e.target.value)}
          required
          aria-describedby={`${id}-name`}
        />
        <span id={`${id}-name`} className="note">
          The full name inside {zone.name}, e.g. www.{zone.name}; *.{zone.name} for a wildcard.
        </span>
        <FieldError error={upsert.error} field="name" />
      </label>
      <label>
        Type
        <select value={type} onChange={(e) => setType(e.target.value as RecordType)}>
          {EDITABLE_TYPES.map((t) => (
            <option key={t}>{t}</option>
          ))}
        </select>
        <FieldError error={upsert.error} field="type" />
      </label>
      <label>
        TTL (seconds, 60–86400)
        <input
          type="number"
          min={60}
          max={86400}
          value={ttl}
          onChange={(e) => setTtl(e.target.value)}
          required
        />
        <FieldError error={upsert.error} field="ttl" />
      </label>
      <label>
        Values
        <textarea
          rows={4}
          value={values}
          onChange={(e) => setValues(e.target.value)}
          required
          aria-describedby={`${id}-values`}
        />
        <span id={`${id}-values`} className="note">
          {HINTS[type]}
        </span>
        <FieldError error={upsert.error} field="values" />
        <ValueLineErrors error={upsert.error} />
      </label>
      <div className="actions">
        <button type="submit" disabled={upsert.isPending}>
          {upsert.isPending ? 'Writing to every box…' : 'Save record set'}
        </button>
        <button type="button" className="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
      <FormProblem
        error={upsert.error}
        fields={[...FIELDS, ...valueIssues(upsert.error).map((i) => i.path)]}
      />
    </form>
  )
}
