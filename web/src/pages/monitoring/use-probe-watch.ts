import type { Procedures } from 'hosting-panel-api/client'
import { useEffect, useState } from 'react'

type WatchFrame = Procedures['probes']['watch']['output']
/** One probe as the watch stream reports it: id, name, state, enabled, lastChangedAt. */
export type WatchRow = WatchFrame['rows'][number]

export type WatchStatus = 'connecting' | 'live' | 'reconnecting' | 'stopped'

/** Merges a frame into the rows: a snapshot replaces them, a change overwrites the rows it names. */
export function mergeFrame(rows: readonly WatchRow[], frame: Pick<WatchFrame, 'kind' | 'rows'>): WatchRow[] {
  if (frame.kind === 'snapshot') return [...frame.rows]
  const changed = new Map(frame.rows.map((row) => [row.id, row]))
  const merged = rows.map((row) => changed.get(row.id) ?? row)
  const known = new Set(rows.map((row) => row.id))
  // A probe created after the snapshot arrives in a change frame: newest first, like the snapshot.
  const added = frame.rows.filter((row) => !known.has(row.id))
  return [...added, ...merged]
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
    source.onopen = () => setStatus('live')
    source.onmessage = (event: MessageEvent<string>) => {
      const frame = JSON.parse(event.data) as WatchFrame
      setRows((current) => mergeFrame(current ?? [], frame))
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
