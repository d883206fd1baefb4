import { createExecutionContext, createMessageBatch, getQueueResult } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import type { Env } from '../../src/env'
import worker from '../../src/index'
import type { JobMessage } from '../../src/jobs/messages'

const workerEnv = env as unknown as Env

/** Delivers one message to the Worker's real queue handler and reports whether it acked or asked for a retry. */
export async function runJob(
  body: JobMessage,
  attempts = 1,
): Promise<{ acked: boolean; retryDelay: number | null }> {
  const id = `job-${crypto.randomUUID()}`
  const batch = createMessageBatch<JobMessage>('panel-jobs', [{ id, timestamp: new Date(), attempts, body }])
  const ctx = createExecutionContext()
  const handler: ExportedHandler<Env, JobMessage> = worker
  await handler.queue?.(batch, workerEnv, ctx)
  const result = await getQueueResult(batch, ctx)
  const retry = result.retryMessages.find((m) => m.msgId === id)
  return { acked: result.explicitAcks.includes(id), retryDelay: retry ? (retry.delaySeconds ?? 0) : null }
}

/**
 * Runs the captured jobs whose type starts with `prefix`, then those they queue and their retries, until none is
 * left (at most `rounds` passes, so a job that always retries ends the loop).
 */
export async function drainJobs(sent: { body: JobMessage }[], prefix: string, rounds = 20): Promise<void> {
  for (let round = 0; round < rounds; round++) {
    const due = sent.filter((job) => job.body.type.startsWith(prefix))
    if (due.length === 0) return
    sent.splice(0, sent.length, ...sent.filter((job) => !due.includes(job)))
    for (const job of due) if ((await runJob(job.body)).retryDelay !== null) sent.push(job)
  }
}
