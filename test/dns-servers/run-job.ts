import { env } from 'cloudflare:workers'
import { vi } from 'vitest'
import type { Env } from '../../src/env'
import type { JobMessage } from '../../src/jobs/messages'
import { runJob } from '../helpers/jobs'

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
    // Only jobs.retry sends a re-sent job (test/jobs*.test.ts capture it themselves).
    for (const message of messages)
      sent.push({ body: message.body as JobMessage, delaySeconds: message.delaySeconds ?? 0 })
    return { metadata: { metrics: { backlogCount: sent.length, backlogBytes: 0 } } }
  })
  return sent
}

/** Delivers one zone-sync message to the Worker's real queue handler and reports whether it acked or retried. */
export function runZoneSync(
  zoneId: string,
  nodeId: string,
  attempts = 1,
): Promise<{ acked: boolean; retryDelay: number | null }> {
  return runJob({ type: 'dns.zone-sync', zoneId, nodeId }, attempts)
}
