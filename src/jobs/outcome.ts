import type { Env } from '../env'

/** What a job asks of the queue: done, or try again after a delay it chose (for example a Retry-After). */
export type JobOutcome = { kind: 'done' } | { kind: 'retry'; delaySeconds: number }

export type JobHandler<M> = (message: M, env: Env, attempts: number) => Promise<JobOutcome>
