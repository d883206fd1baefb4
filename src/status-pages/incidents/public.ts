import type { Incident } from './schema'

/** An incident as the public reads it: the probes it concerns by the names the page gives them, never by id. */
export interface PublicIncident {
  title: string
  impact: Incident['impact']
  state: Incident['state']
  /** Display names of the listed probes it concerns (a probe the page no longer lists drops out). */
  affects: string[]
  createdAt: string
  updatedAt: string
  resolvedAt: string | null
  /** Every update, newest first. */
  updates: { state: Incident['state']; message: string; at: string }[]
}

/** The page's incidents as readPageIncidents orders them (open first), for the public. */
export function publicIncidents(
  incidents: readonly Incident[],
  displayName: ReadonlyMap<string, string>,
): PublicIncident[] {
  return incidents.map((incident) => ({
    title: incident.title,
    impact: incident.impact,
    state: incident.state,
    affects: incident.probeIds.flatMap((id) => {
      const name = displayName.get(id)
      return name === undefined ? [] : [name]
    }),
    createdAt: incident.createdAt,
    updatedAt: incident.updatedAt,
    resolvedAt: incident.resolvedAt,
    updates: incident.updates.map(({ state, message, at }) => ({ state, message, at })),
  }))
}
