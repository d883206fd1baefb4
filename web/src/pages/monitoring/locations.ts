import { useQuery } from '@tanstack/react-query'
import { api } from '../../api'
import { useSession } from '../../session'
import type { Probe } from './probe-types'

/** The locations a probe checks from, as an array (`edge` and node ids); none for a heartbeat. */
export function locationsOf(location: Probe['location']): string[] {
  if (location === null) return []
  return typeof location === 'string' ? [location] : location
}

/** `location` as probes.create and probes.update take it: one location as a string, several as an array. */
export function locationInput(locations: readonly string[]): string | string[] {
  return locations.length === 1 ? (locations[0] ?? 'edge') : [...locations]
}

/** The fleet's nodes by id, when the principal may read the fleet (else none: ids are shown as they are). */
export function useNodeNames(): Map<string, string> {
  const { can } = useSession()
  const nodes = useQuery({
    queryKey: ['probe-locations', 'nodes'],
    queryFn: () => api.nodes.list({ limit: 500 }),
    enabled: can('fleet:view'),
  })
  return new Map((nodes.data ?? []).map((node) => [node.id, node.name]))
}

/** How people read the locations: "edge", "node db-1", joined. */
export function locationText(location: Probe['location'], names: Map<string, string>): string {
  const locations = locationsOf(location)
  if (locations.length === 0) return 'none (pings come to the panel)'
  return locations.map((key) => (key === 'edge' ? 'edge' : `node ${names.get(key) ?? key}`)).join(', ')
}
