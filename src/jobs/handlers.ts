import { deliverChangelogWebhook } from '../changelog/jobs'
import { zoneSyncJob } from '../dns-servers/jobs'
import type { Env } from '../env'
import type { JobMessage } from './messages'

/** What a job asks of the queue: done, or try again after a delay it chose (for example a Retry-After). */
export type JobOutcome = { kind: 'done' } | { kind: 'retry'; delaySeconds: number }

export type JobHandler<M> = (message: M, env: Env, attempts: number) => Promise<JobOutcome>

/** The dispatch table: one handler per message type. */
export type JobHandlers = { [T in JobMessage['type']]: JobHandler<Extract<JobMessage, { type: T }>> }

export const jobHandlers: JobHandlers = {
  'changelog.webhook-delivery': deliverChangelogWebhook,
  'dns.zone-sync': zoneSyncJob,
}
