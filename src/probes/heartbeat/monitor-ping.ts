import { sha256Hex, timingSafeEqual } from '../../lib/hash'
import { isActive, type Ping } from '../monitor/api'
import type { MonitorContext } from '../monitor/context'
import { readWindows } from '../monitor/maintenance-windows'
import { record } from '../monitor/record'
import { settle } from '../monitor/settle'

/**
 * Records a ping the ledger forwarded (or the monitor must see): a `/start` opens a run whose grace is armed, a
 * finish or a failure is the heartbeat's check result. False when the token is wrong or the probe does not run.
 */
export async function recordPing(monitor: MonitorContext, ping: Ping): Promise<boolean> {
  const { store } = monitor
  // Hashed before anything is read, whatever the probe, so a refusal takes as long as an acceptance.
  const hash = await sha256Hex(ping.secret)
  const snapshot = store.snapshot()
  const expected = snapshot?.heartbeatTokenHash ?? ''
  const matches = timingSafeEqual(hash, expected)
  if (!snapshot || !matches || !isActive(snapshot) || snapshot.type !== 'heartbeat') return false
  await readWindows(monitor, snapshot.id)
  const heartbeat = store.heartbeat()
  const lastPing = { at: new Date(ping.at).toISOString(), signal: ping.signal, exitStatus: ping.exitStatus }
  if (ping.signal === 'start') {
    store.setHeartbeat({
      ...heartbeat,
      lastPing: { ...lastPing, body: ping.body, durationMs: null },
      startedAt: ping.at,
    })
    // The ledger forwards the run's finish here (only the monitor can time it); the run's grace is armed.
    await settle(monitor, false)
    return true
  }
  const durationMs = heartbeat.startedAt === null ? null : Math.max(0, ping.at - heartbeat.startedAt)
  store.setHeartbeat({
    lastPing: { ...lastPing, body: ping.body, durationMs },
    startedAt: null,
    base: ping.at,
  })
  const failed = ping.signal === 'fail' || (ping.exitStatus !== null && ping.exitStatus !== 0)
  const detail =
    ping.exitStatus !== null
      ? `exit status ${ping.exitStatus}`
      : failed
        ? 'failure signalled'
        : 'ping received'
  const urgent = record(monitor, {
    kind: 'result',
    at: ping.at,
    outcome: failed ? 'down' : 'up',
    latencyMs: durationMs,
    detail,
  })
  await settle(monitor, urgent)
  return true
}
