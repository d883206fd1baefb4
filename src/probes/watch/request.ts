import type { ProbeTargetKind } from '../monitor/api'

/** The one WatchHub: `env.WATCH_HUB.getByName(WATCH_HUB_NAME)`. */
export const WATCH_HUB_NAME = 'probes'

/** What a validated probes.watch call asks the hub for. */
export interface WatchOpen {
  targetKind: ProbeTargetKind | null
  targetId: string | null
  intervalMs: number
  /** The reopened stream's Last-Event-ID; null for a fresh stream. */
  lastEventId: string | null
  /** Whose stream it is, for the caps on open streams (watchPrincipalKey). */
  principal: string
}

// The hub is reached only from the Worker, after the transport validated the input, so one JSON header carries it.
const HEADER = 'x-watch-open'

/** The request that opens a stream on the hub. */
export function watchRequest(open: WatchOpen): Request {
  return new Request('https://watch-hub.internal/', { headers: { [HEADER]: JSON.stringify(open) } })
}

/** Reads what `watchRequest` wrote. */
export function readWatchRequest(request: Request): WatchOpen {
  const raw = request.headers.get(HEADER)
  if (raw === null) throw new Error('the watch hub opens streams only for watchRequest()')
  return JSON.parse(raw) as WatchOpen
}
