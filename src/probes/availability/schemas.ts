import { z } from '@hono/zod-openapi'
import { IdSchema } from '../../lib/schemas'

const Instant = (what: string) => z.iso.datetime({ offset: true }).describe(what)

/** A window's ends: ISO 8601 instants, `to` after `from` (a custom issue naming `to` otherwise). */
export const WindowShape = {
  from: Instant(
    'Where the window starts (with Z or an offset; to the second): not before the hourly rollups’ retention (2160 hours) and before now',
  ),
  to: Instant('Where it ends: after `from`; time after now is not counted'),
}

function toAfterFrom(ctx: { value: { from: string; to: string }; issues: z.core.$ZodRawIssue[] }) {
  if (Date.parse(ctx.value.to) <= Date.parse(ctx.value.from))
    ctx.issues.push({ code: 'custom', path: ['to'], message: 'must be after from', input: ctx.value.to })
}

export const AvailabilityInputSchema = z.strictObject({ id: IdSchema, ...WindowShape }).check(toAfterFrom)

/** The CSV route's query: the window alone (the probe is in the path). */
export const AvailabilityQuerySchema = z.object(WindowShape).check(toAfterFrom)

const Seconds = z.number().int().min(0)

export const AvailabilitySchema = z
  .object({
    uptimeRatio: z.number().int().min(0).max(10_000).openapi({
      description:
        'Basis points of the counted time (the window up to now, less maintenance) the probe was not down: floor((counted − downtime) × 10000 / counted); 10000 when nothing is counted',
    }),
    downtimeSeconds: Seconds.describe(
      'Seconds the probe was down or flapping outside maintenance windows covering it',
    ),
    incidents: z
      .number()
      .int()
      .min(0)
      .describe(
        'Down stretches (from a change to down or flapping until the next change to up, degraded or paused) with any downtime in the window, counted where their downtime begins',
      ),
    longestIncidentSeconds: Seconds.describe(
      'The downtime of the longest of those incidents, inside the window',
    ),
    maintenanceSeconds: Seconds.describe(
      'Seconds of the window maintenance windows covering the probe covered',
    ),
    checks: z
      .number()
      .int()
      .min(0)
      .describe(
        'Checks of the rollup buckets starting inside the window: hourly, and daily for whole UTC days',
      ),
  })
  .openapi('ProbeAvailability')
