import { createExecutionContext, createMessageBatch, getQueueResult } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { vi } from 'vitest'
import type { ZoneSyncMessage } from '../../src/dns-servers/jobs'
import type { Env } from '../../src/env'
import worker from '../../src/index'
import type { JobMessage } from '../../src/jobs/messages'

const workerEnv = env as unknown as Env

export interface SentJob {
  body: JobMessage
  delaySeconds: number
}

/**
 * Captures what the Worker queues instead of letting the local Queue consume it in the background, so each
 * test decides when a zone-sync runs. Call it in beforeEach; the spy ends with the test.
 */
export function captureJobs(): SentJob[] {
  const sent: SentJob[] = []
  vi.spyOn(workerEnv.JOBS, 'sendBatch').mockImplementation(async (messages) => {
    for (const message of messages) sent.push({ body: message.body, delaySeconds: message.delaySeconds ?? 0 })
    return { metadata: { metrics: { backlogCount: sent.length, backlogBytes: 0 } } }
  })
  return sent
}

/** Delivers one zone-sync message to the Worker's real queue handler and reports whether it acked or retried. */
export async function runZoneSync(
  zoneId: string,
  nodeId: string,
  attempts = 1,
): Promise<{ acked: boolean; retryDelay: number | null }> {
  const id = `zone-sync-${crypto.randomUUID()}`
  const body: ZoneSyncMessage = { type: 'dns.zone-sync', zoneId, nodeId }
  const batch = createMessageBatch<JobMessage>('panel-jobs', [{ id, timestamp: new Date(), attempts, body }])
  const ctx = createExecutionContext()
  const handler: ExportedHandler<Env, JobMessage> = worker
  await handler.queue?.(batch, workerEnv, ctx)
  const result = await getQueueResult(batch, ctx)
  const retry = result.retryMessages.find((m) => m.msgId === id)
  return { acked: result.explicitAcks.includes(id), retryDelay: retry ? (retry.delaySeconds ?? 0) : null }
}
