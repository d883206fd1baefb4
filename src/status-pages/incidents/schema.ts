import { z } from '@hono/zod-openapi'
import { INCIDENT_IMPACTS, INCIDENT_STATES } from '../../db/schema/status-pages'

export const IncidentImpactSchema = z.enum(INCIDENT_IMPACTS)
export const IncidentStateSchema = z.enum(INCIDENT_STATES)

/** How far back the public page, its JSON and its feeds tell resolved incidents. */
export const INCIDENT_HISTORY_DAYS = 90

export const IncidentUpdateSchema = z
  .object({
    id: z.string(),
    state: IncidentStateSchema,
    message: z.string(),
    at: z.iso.datetime(),
  })
  .openapi('IncidentUpdate')

export const IncidentSchema = z
  .object({
    id: z.string(),
    statusPageId: z.string(),
    title: z.string(),
    impact: IncidentImpactSchema,
    state: IncidentStateSchema.describe('The newest update’s state'),
    probeIds: z.array(z.string()),
    automatic: z.boolean().describe('Opened by the page’s automatic rule when a listed probe went down'),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
    resolvedAt: z.iso.datetime().nullable(),
    updates: z.array(IncidentUpdateSchema).describe('Every update, newest first'),
  })
  .openapi('Incident')

export type Incident = z.infer<typeof IncidentSchema>
export type IncidentUpdate = z.infer<typeof IncidentUpdateSchema>
