import type { Env } from '../env'
import type { LiveState } from './monitor-api'
import { type ProbeRecord, toSnapshot } from './rows'

/** Hands the catalogue row to the probe's monitor (after the D1 commit) and answers its live state. */
export function configureMonitor(env: Env, row: ProbeRecord): Promise<LiveState> {
  return env.PROBE_MONITOR.getByName(row.id).configure(toSnapshot(row))
}

/** The URL a heartbeat probe's pings go to. */
export function heartbeatUrl(origin: string, token: string): string {
  return `${origin}/api/heartbeat/${token}`
}
