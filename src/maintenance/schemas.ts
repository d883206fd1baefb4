import { z } from '@hono/zod-openapi'
import { NextCursorSchema, pageInput } from '../lib/paging'
import { IdSchema, NameSchema } from '../lib/schemas'
import { timezoneProblem } from '../probes/heartbeat/schedule'
import { WEEKDAYS } from './schedule'

/** The longest weekly opening: a week (a window on every day for that long never closes). */
const MAX_DURATION_MINUTES = 7 * 24 * 60

const OnceScheduleSchema = z
  .strictObject({
    kind: z.literal('once'),
    startsAt: z.iso
      .datetime({ offset: true })
      .describe('When the window opens (an instant, with Z or an offset)'),
    endsAt: z.iso.datetime({ offset: true }).describe('When it closes; after startsAt'),
  })
  .check((ctx) => {
    if (Date.parse(ctx.value.endsAt) <= Date.parse(ctx.value.startsAt))
      ctx.issues.push({
        code: 'custom',
        path: ['endsAt'],
        message: 'must be after startsAt',
        input: ctx.value.endsAt,
      })
  })
  .openapi('MaintenanceOnce')

const WeeklyScheduleSchema = z
  .strictObject({
    kind: z.literal('weekly'),
    days: z.array(z.enum(WEEKDAYS)).min(1).max(7).describe('The days the window opens on, in its time zone'),
    startTime: z
      .string()
      .regex(/^([01]\d|2[0-3]):[0-5]\d$/, { message: 'must be HH:MM, 00:00 to 23:59' })
      .describe(
        'The local time it opens (a time skipped by a daylight-saving change opens at the end of the gap)',
      ),
    durationMinutes: z
      .number()
      .int()
      .min(1)
      .max(MAX_DURATION_MINUTES)
      .describe('How long it stays open, in elapsed minutes'),
    timezone: z.string().min(1).max(64).describe('An IANA time zone, such as Europe/Berlin'),
  })
  .check((ctx) => {
    const problem = timezoneProblem(ctx.value.timezone)
    if (problem !== null)
      ctx.issues.push({ code: 'custom', path: ['timezone'], message: problem, input: ctx.value.timezone })
  })
  // Kept once each, Monday first.
  .overwrite((schedule) => ({
    ...schedule,
    days: [...WEEKDAYS.slice(1), 'sun' as const].filter((day) => schedule.days.includes(day)),
  }))
  .openapi('MaintenanceWeekly')

export const MaintenanceScheduleSchema = z.discriminatedUnion('kind', [
  OnceScheduleSchema,
  WeeklyScheduleSchema,
])

const ProbeIdsSchema = z.array(IdSchema).max(100).describe('Probes the window covers')
const StatusPageIdsSchema = z
  .array(IdSchema)
  .max(20)
  .describe('Status pages whose listed probes the window covers')

export const CreateMaintenanceInputSchema = z.strictObject({
  title: NameSchema.describe('Shown on status pages while the window covers a listed probe'),
  schedule: MaintenanceScheduleSchema,
  probeIds: ProbeIdsSchema.default([]),
  statusPageIds: StatusPageIdsSchema.default([]),
})

export const UpdateMaintenanceInputSchema = z.strictObject({
  id: IdSchema,
  title: NameSchema.optional(),
  schedule: MaintenanceScheduleSchema.optional(),
  probeIds: ProbeIdsSchema.optional().describe('Replaces the probes whole'),
  statusPageIds: StatusPageIdsSchema.optional().describe('Replaces the status pages whole'),
})

const OpeningSchema = z.object({ startsAt: z.iso.datetime(), endsAt: z.iso.datetime() })

export const MaintenanceWindowSchema = z
  .object({
    id: z.string(),
    title: z.string(),
    schedule: MaintenanceScheduleSchema,
    probeIds: z.array(z.string()),
    statusPageIds: z.array(z.string()),
    active: z.boolean().describe('Whether the window is open now'),
    opening: OpeningSchema.nullable().describe(
      'The opening running now, else the next one; null when the window will not open again',
    ),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .openapi('MaintenanceWindow')

export const ListMaintenanceInputSchema = z.strictObject({ ...pageInput })

export const MaintenanceListSchema = z.object({
  windows: z.array(MaintenanceWindowSchema),
  nextCursor: NextCursorSchema,
})
