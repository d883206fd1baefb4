import { FormProblem } from '../../components/form-problem'
import type { RetryAnswer } from './retry-button'
import { KIND_LABELS } from './types'

/** The panel's answer to the last Retry. */
export function RetryAnswerNote({ answer }: { answer: RetryAnswer | null }) {
  if (!answer) return null
  const what = `${KIND_LABELS[answer.job.kind]} for ${answer.job.target}`
  if ('sent' in answer)
    return (
      <p role="status" className="note">
        Sent again: {what}. It shows as “sent again” until it succeeds or fails again.
      </p>
    )
  return (
    <div>
      <p className="note">Could not send again: {what}.</p>
      <FormProblem error={answer.error} />
    </div>
  )
}
