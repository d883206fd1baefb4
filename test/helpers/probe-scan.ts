import { expect } from 'vitest'
import type { Env } from '../../src/env'
import type { JobMessage } from '../../src/jobs/messages'
import { fanOutScan } from '../../src/probes/checks/scan-cron'
import { runJob } from './jobs'

type ScanMessage = Extract<JobMessage, { type: 'probe.scan' }>
type ChecksMessage = Extract<JobMessage, { type: 'probe.checks' }>

/** Takes the `probe.checks` packs the shards queued out of `sent`, for the caller to deliver. */
export function takeCheckPacks(sent: JobMessage[]): ChecksMessage[] {
  const packs = sent.filter((m): m is ChecksMessage => m.type === 'probe.checks')
  sent.splice(0, sent.length, ...sent.filter((m) => m.type !== 'probe.checks'))
  return packs
}

/** The slots (`<probeId>@<scheduledAt>`) the packs check. */
export const packedSlots = (packs: ChecksMessage[]) =>
  packs.flatMap((pack) => pack.checks.map((check) => `${check.probeId}@${check.scheduledAt}`))

/**
 * Delivers every `probe.scan` shard captured in `sent` (captureJobs) to the Worker's real queue handler, taking
 * them out of `sent`; the checks they queue land in `sent`.
 */
export async function runScanShards(sent: JobMessage[]): Promise<ScanMessage[]> {
  const shards = sent.filter((m): m is ScanMessage => m.type === 'probe.scan')
  sent.splice(0, sent.length, ...sent.filter((m) => m.type !== 'probe.scan'))
  for (const shard of shards) expect((await runJob(shard)).acked).toBe(true)
  return shards
}

/** The minute scan at `now` without the minute's other cron tasks: the fan-out, then its shards on the queue. */
export async function scanAt(env: Env, sent: JobMessage[], now: number): Promise<void> {
  await fanOutScan(env, now)
  await runScanShards(sent)
}
