import { and, eq } from 'drizzle-orm'
import { db } from '../../db/client'
import { probes } from '../../db/schema/probes'
import type { Env } from '../../env'
import { type ProbeRecord, toSnapshot } from '../rows'
import type { LiveState } from './api'

/**
 * Hands the catalogue row to the probe's monitor (after the D1 commit) and answers its live state; the row then
 * records that its monitor holds this version. A call that fails leaves the row behind, and the minute sweep
 * (monitor-sync-cron.ts) configures it again: a pause, an archive or a new token holds within a minute at worst.
 * Given `waitUntil` (a procedure), the record is written after the answer: it is the sweep's bookkeeping, which
 * no caller waits for.
 */
export async function configureMonitor(
  env: Env,
  row: ProbeRecord,
  waitUntil?: (promise: Promise<unknown>) => void,
): Promise<LiveState> {
  const live = await env.PROBE_MONITOR.getByName(row.id).configure(toSnapshot(row))
  const recorded = recordConfigured(env, row)
  if (waitUntil) waitUntil(recorded)
  else await recorded
  return live
}

async function recordConfigured(env: Env, row: ProbeRecord): Promise<void> {
  try {
    // Guarded by updatedAt: a newer change committed meanwhile stays behind until its own configure.
    await db(env.DB)
      .update(probes)
      .set({ monitorVersion: row.updatedAt.getTime() })
      .where(and(eq(probes.id, row.id), eq(probes.updatedAt, row.updatedAt)))
  } catch (error) {
    // The monitor holds the change; the sweep only repeats a configure that already took.
    console.error(`probe ${row.id}: recording the configured version failed`, error)
  }
}

/** The URL a heartbeat probe's pings go to. */
export function heartbeatUrl(origin: string, token: string): string {
  return `${origin}/api/heartbeat/${token}`
}
