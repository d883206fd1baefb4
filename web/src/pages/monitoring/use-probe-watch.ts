import type { Procedures } from 'hosting-panel-api/client'
import { useEffect, useState } from 'react'

/** One probe as each watch event reports it: id, name, state, enabled, lastChangedAt. */
export type WatchRow = Procedures['probes']['watch']['output']

export type WatchStatus = 'connecting' | 'live' | 'reconnecting' | 'stopped'

/**
 * Takes one event into the rows: it overwrites the row of its probe; a probe not known yet goes last, so the
 * opening events (one per probe, newest first) keep their order.
 */
export function mergeEvent(rows: readonly WatchRow[], event: WatchRow): WatchRow[] {
  const at = rows.findIndex((row) => row.id === event.id)
  if (at === -1) return [...rows, event]
  return rows.map((row, index) => (index === at ? event : row))
}

/**
 * The probes' live rows from `GET /api/v1/probes/watch` through a browser EventSource (session cookie). The
 * browser reconnects by itself with Last-Event-ID when the panel ends the stream; a refused stream stops.
 */
export function useProbeWatch(): { rows: WatchRow[] | null; status: WatchStatus } {
  const [rows, setRows] = useState<WatchRow[] | null>(null)
  const [status, setStatus] = useState<WatchStatus>('connecting')
  useEffect(() => {
    const source = new EventSource('/api/v1/probes/watch?intervalMs=1000')
    source.onopen = () => {
      setStatus('live')
      setRows((current) => current ?? [])
    }
    source.onmessage = (event: MessageEvent<string>) => {
      const row = JSON.parse(event.data) as WatchRow
      setRows((current) => mergeEvent(current ?? [], row))
    }
    source.onerror = () => setStatus(source.readyState === EventSource.CLOSED ? 'stopped' : 'reconnecting')
    return () => source.close()
  }, [])
  return { rows, status }
}

function watchFields(row: WatchRow): WatchRow {
  return {
    id: row.id,
    name: row.name,
    state: row.state,
    enabled: row.enabled,
    lastChangedAt: row.lastChangedAt,
  }
}

/**
 * The rows to show: the listed probes with the stream's fields laid over them (the later change wins, the
 * stream on a tie), and before them the probes only the stream knows yet.
 */
export function liveRows(listed: readonly WatchRow[], watched: readonly WatchRow[] | null): WatchRow[] {
  const live = new Map((watched ?? []).map((row) => [row.id, row]))
  const listedIds = new Set(listed.map((row) => row.id))
  const onlyWatched = (watched ?? []).filter((row) => !listedIds.has(row.id))
  const merged = listed.map((row) => {
    const streamed = live.get(row.id)
    if (!streamed) return watchFields(row)
    return (row.lastChangedAt ?? '') > (streamed.lastChangedAt ?? '') ? watchFields(row) : streamed
  })
  return [...onlyWatched, ...merged]
}
