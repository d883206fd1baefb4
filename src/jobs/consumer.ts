import type { Env } from '../env'
import { backoffSeconds } from '../lib/backoff'
import { jobHandlers } from './handlers'
import type { JobMessage } from './messages'
import type { JobHandler, JobOutcome } from './outcome'

/**
 * Runs each message's handler. A thrown error retries with exponential backoff; after the consumer's
 * max_retries the Queue moves the message to the dead-letter queue.
 */
export async function consumeJobs(batch: MessageBatch<JobMessage>, env: Env): Promise<void> {
  for (const message of batch.messages) {
    const body: JobMessage = message.body
    const type = (body as { type?: unknown }).type
    const handler = (jobHandlers as Partial<Record<string, JobHandler<JobMessage>>>)[String(type)]
    if (!handler) {
      console.error(`no handler for job type ${String(type)}; dropping it`)
      message.ack()
      continue
    }
    let outcome: JobOutcome
    try {
      outcome = await handler(body, env, message.attempts)
    } catch (error) {
      console.error(`job ${String(type)} failed on attempt ${message.attempts}`, error)
      outcome = { kind: 'retry', delaySeconds: backoffSeconds(message.attempts) }
    }
    if (outcome.kind === 'done') message.ack()
    else message.retry({ delaySeconds: outcome.delaySeconds })
  }
}
