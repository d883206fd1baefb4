import { db } from '../../db/client'
import { windowsCoveringProbe } from '../../maintenance/windows-read'
import type { MonitorContext } from './context'
import { type KnownWindows, WINDOWS_LOOKBACK_MS } from './store'

/** The maintenance windows are read from D1 again when older than this before an input is judged. */
const WINDOWS_TTL_MS = 60_000

/** Keeps windows a caller read for this probe when they are newer than the copy kept. */
export function takeWindows(monitor: MonitorContext, windows: KnownWindows | undefined): void {
  if (windows && windows.readAt > (monitor.store.knownWindows()?.readAt ?? -1))
    monitor.store.setKnownWindows(windows)
}

/**
 * Reads the windows that may cover the probe from D1 when the copy kept is older than WINDOWS_TTL_MS (or when
 * told they changed). Done before an input is judged, never in the middle; if D1 cannot answer, the kept copy
 * stands.
 */
export function readWindows(monitor: MonitorContext, probeId: string, force = false): Promise<void> {
  const known = monitor.store.knownWindows()
  if (!force && known !== null && Date.now() - known.readAt < WINDOWS_TTL_MS) return Promise.resolve()
  monitor.readingWindows ??= (async () => {
    const readAt = Date.now()
    try {
      const windows = await windowsCoveringProbe(db(monitor.env.DB), probeId, readAt - WINDOWS_LOOKBACK_MS)
      monitor.store.setKnownWindows({ readAt, windows })
    } catch (error) {
      console.error(`probe ${probeId}: reading maintenance windows failed`, error)
    } finally {
      monitor.readingWindows = null
    }
  })()
  return monitor.readingWindows
}
