import { errorText, problemOf } from '../api'

/** Why a read failed: a role that may not read it (403) said plainly, anything else in the panel's words. */
export function QueryProblem({ error, what }: { error: unknown; what: string }) {
  if (!error) return null
  const code = problemOf(error)?.code
  return (
    <p role="alert" className="problem">
      {code === 'forbidden'
        ? `Your role cannot read ${what}.`
        : code === 'not_found'
          ? `No such ${what}: it may have been removed.`
          : `Could not load ${what}: ${errorText(error)}`}
    </p>
  )
}
