import { errorText, fieldError, problemOf } from '../api'

/** The panel's answer to a failed action: its detail, plus any field it names that no input shows. */
export function FormProblem({ error, fields = [] }: { error: unknown; fields?: readonly string[] }) {
  if (!error) return null
  const problem = problemOf(error)
  const others = (problem?.issues ?? []).filter((issue) => !fields.includes(issue.path))
  return (
    <div role="alert" className="problem">
      <strong>{problem?.title ?? 'Failed'}</strong> {errorText(error)}
      {others.length > 0 && (
        <ul>
          {others.map((issue) => (
            <li key={issue.path}>
              <code>{issue.path}</code>: {issue.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  )
}

/** The message next to an input, when the panel's answer names its field. */
export function FieldError({ error, field }: { error: unknown; field: string }) {
  const message = fieldError(error, field)
  return message ? (
    <span className="field-error" role="alert">
      {message}
    </span>
  ) : null
}
