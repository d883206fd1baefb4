import { z } from '@hono/zod-openapi'
import { IdSchema } from '../../lib/schemas'
import { MAX_LOCATIONS, type ProbeType } from '../config'

/** The location that runs a check on the panel itself. */
export const EDGE = 'edge'

const LocationValueSchema = IdSchema.openapi({
  description: '`edge` (the panel itself) or the id of a node of the panel, whose agent runs the check',
})

/**
 * `location` as a caller sets it: one location, or an array of 1 to 5 distinct ones. Stored as an array;
 * read back as a string when there is one, an array when there are several.
 */
export const LocationInputSchema = z
  .union([
    LocationValueSchema,
    z
      .array(LocationValueSchema)
      .min(1, 'must name at least one location: "edge" or a node id')
      .max(MAX_LOCATIONS, `must name at most ${MAX_LOCATIONS} locations`)
      .refine((values) => new Set(values).size === values.length, 'must not name a location twice'),
  ])
  .openapi('ProbeLocationInput', {
    description:
      'Where the checks run: `edge` (default) or a node id, or an array of up to 5 distinct ones. Several locations: the probe is degraded while some fail and down when config.confirmations of them (all by default) do. Heartbeats take none',
  })

export type LocationInput = z.infer<typeof LocationInputSchema>

export const ProbeLocationSchema = z
  .union([z.string(), z.array(z.string())])
  .nullable()
  .openapi('ProbeLocation', {
    description:
      'Where the checks run: `edge` or a node id when there is one location, an array when there are several; null for a heartbeat (its pings come to the panel)',
  })

/** The stored form: always an array. */
export function toLocations(input: LocationInput | undefined): string[] {
  if (input === undefined) return [EDGE]
  return typeof input === 'string' ? [input] : input
}

/** The read form (see ProbeLocationSchema). */
export function locationOf(type: ProbeType, locations: readonly string[]): string | string[] | null {
  if (type === 'heartbeat') return null
  return locations.length === 1 ? (locations[0] ?? EDGE) : [...locations]
}

/** The node ids among the locations. */
export function nodeLocations(locations: readonly string[]): string[] {
  return locations.filter((location) => location !== EDGE)
}

/** Whether only the edge checks (the probe's checks then run as they always did, without rounds). */
export function isEdgeOnly(locations: readonly string[] | undefined): boolean {
  return locations === undefined || (locations.length === 1 && locations[0] === EDGE)
}
