import type { Env } from '../env'

/**
 * What a job asks of the queue: done, try again after a delay it chose (for example a Retry-After), or nothing
 * more (it gave up by itself: the message ends and the run shows as dead on the jobs list). A retry that is a
 * failure carries the counterpart's `error` (recorded on the jobs list); one without is a wait.
 */
export type JobOutcome =
  | { kind: 'done' }
  | { kind: 'retry'; delaySeconds: number; error?: string }
  /** `attempts` when the work counts its own across job chains (a webhook delivery). */
  | { kind: 'failed'; error: string; attempts?: number }

export type JobHandler<M> = (message: M, env: Env, attempts: number) => Promise<JobOutcome>
