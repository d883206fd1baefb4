import { TimeStamp } from '../../components/time-stamp'
import { type RetryAnswer, RetryButton } from './retry-button'
import { type Job, type JobState, KIND_LABELS, STATE_LABELS } from './types'

const STATE_CLASS: Record<JobState, string> = {
  dead: 'state state-down',
  retrying: 'state state-degraded',
  retried: 'state state-paused',
  succeeded: 'state state-up',
}

/** Failed jobs, newest last attempt first: what they acted on, how often they tried and what the other side said. */
export function JobsTable({
  jobs,
  onRetry,
  busy,
}: {
  jobs: readonly Job[]
  /** Given when the reader may retry (settings:edit). */
  onRetry?: (answer: RetryAnswer) => void
  busy: boolean
}) {
  return (
    <div className="jobs-table">
      <table aria-busy={busy}>
        <thead>
          <tr>
            <th scope="col">Job</th>
            <th scope="col">Target</th>
            <th scope="col">State</th>
            <th scope="col">Attempts</th>
            <th scope="col">Last error</th>
            <th scope="col">First attempt</th>
            <th scope="col">Last attempt</th>
            {onRetry && <th scope="col">Retry</th>}
          </tr>
        </thead>
        <tbody>
          {jobs.map((job) => (
            <tr key={job.id}>
              <td>
                {KIND_LABELS[job.kind]}
                <div className="note">
                  <code>{job.kind}</code>
                </div>
              </td>
              <td>{job.target}</td>
              <td>
                <span className={STATE_CLASS[job.state]}>{STATE_LABELS[job.state]}</span>
                {job.deadLetteredAt && (
                  <div className="note">
                    dead-lettered <TimeStamp iso={job.deadLetteredAt} />
                  </div>
                )}
              </td>
              <td>
                {job.attempts}
                {job.retries > 0 && <div className="note">sent again {job.retries}×</div>}
              </td>
              <td className="last-error">{job.lastError ?? '—'}</td>
              <td>
                <TimeStamp iso={job.firstAttemptAt} />
              </td>
              <td>
                <TimeStamp iso={job.lastAttemptAt} />
              </td>
              {onRetry && (
                <td>{job.state === 'dead' ? <RetryButton job={job} onAnswer={onRetry} /> : '—'}</td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}
