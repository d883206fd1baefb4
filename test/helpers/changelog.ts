import {
  createExecutionContext,
  createMessageBatch,
  createScheduledController,
  getQueueResult,
  type QueueResult,
  waitOnExecutionContext,
} from 'cloudflare:test'
import { env as testEnv } from 'cloudflare:workers'
import { vi } from 'vitest'
import type { Env } from '../../src/env'
import worker from '../../src/index'
import type { JobMessage } from '../../src/jobs/messages'
import { type Caller, ok } from './http'

/** The Worker's own bindings, typed as the Worker sees them. */
export const workerEnv = testEnv as unknown as Env

/**
 * Captures what the Worker sends to the JOBS queue instead of letting the local queue run the consumer in the
 * background, so a test decides when each message is consumed. Returns the sent bodies and the spy.
 */
export function captureJobs() {
  const sent: JobMessage[] = []
  const sendBatch = vi.spyOn(workerEnv.JOBS, 'sendBatch').mockImplementation(async (messages) => {
    // Only jobs.retry sends a re-sent job (test/jobs*.test.ts capture it themselves).
    for (const message of messages) sent.push(message.body as JobMessage)
    return { metadata: { metrics: { backlogCount: sent.length, backlogBytes: 0 } } }
  })
  return { sent, sendBatch }
}

/** A queue result plus the delay each retried message asked for (getQueueResult does not report delays). */
export interface JobsResult extends QueueResult {
  retryDelays: Record<string, number | undefined>
}

/**
 * Runs the Worker's queue handler on messages, as the Queue would deliver them, and returns its ack/retry result.
 * Each message's id is `msg-<index>` unless given (the Queue keeps a message's id across its retries).
 */
export async function runJobs(
  messages: { body: JobMessage; attempts?: number; id?: string }[],
): Promise<JobsResult> {
  const batch = createMessageBatch<JobMessage>(
    'panel-jobs',
    messages.map((m, i) => ({
      id: m.id ?? `msg-${i}`,
      timestamp: new Date(),
      attempts: m.attempts ?? 1,
      body: m.body,
    })),
  )
  const retryDelays: Record<string, number | undefined> = {}
  for (const message of batch.messages) {
    const retry = message.retry.bind(message)
    vi.spyOn(message, 'retry').mockImplementation((options) => {
      retryDelays[message.id] = options?.delaySeconds
      retry(options)
    })
  }
  const ctx = createExecutionContext()
  const handler: ExportedHandler<Env, JobMessage> = worker
  await handler.queue?.(batch, workerEnv, ctx)
  return { ...(await getQueueResult(batch, ctx)), retryDelays }
}

/** Runs the Worker's scheduled handler as the cron trigger `cron` would at `scheduledTime`, and waits for it. */
export async function runCron(cron: string, scheduledTime = Date.now()): Promise<void> {
  const ctx = createExecutionContext()
  const handler: ExportedHandler<Env, JobMessage> = worker
  await handler.scheduled?.(createScheduledController({ cron, scheduledTime }), workerEnv, ctx)
  await waitOnExecutionContext(ctx)
}

export interface ReleaseRow {
  id: string
  version: string
  state: 'draft' | 'published'
  date: string | null
  [key: string]: unknown
}

/** Creates a draft release through changelog.releases.create. */
export function createRelease(admin: Caller, version: string, fields: Record<string, unknown> = {}) {
  return ok<ReleaseRow>(
    'changelog.releases.create',
    { version, title: `Release ${version}`, severity: 'minor', ...fields },
    admin,
  )
}

/** Creates and publishes a release on a given date. */
export async function publishRelease(
  admin: Caller,
  version: string,
  date?: string,
  fields: Record<string, unknown> = {},
): Promise<ReleaseRow> {
  const release = await createRelease(admin, version, fields)
  return ok<ReleaseRow>('changelog.releases.publish', { id: release.id, ...(date ? { date } : {}) }, admin)
}
