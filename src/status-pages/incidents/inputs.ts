import { z } from '@hono/zod-openapi'
import { NextCursorSchema, pageInput } from '../../lib/paging'
import { IdSchema } from '../../lib/schemas'
import { IncidentImpactSchema, IncidentSchema, IncidentStateSchema } from './schema'

export const MAX_TITLE_LENGTH = 200
export const MAX_MESSAGE_LENGTH = 5000

// Controls other than line breaks and tabs, format characters (bidi overrides, zero-width) and lone surrogates:
// text shown to the public must read as it looks.
const UNSAFE_IN_TITLE = /[\p{Cc}\p{Cf}\p{Cs}]/u
const UNSAFE_IN_MESSAGE = /(?![\t\n\r])[\p{Cc}\p{Cf}\p{Cs}]/u

const IncidentTitleSchema = z
  .string()
  .regex(/\S/, { message: 'must not be blank' })
  .trim()
  .min(1)
  .max(MAX_TITLE_LENGTH)
  .refine((text) => !UNSAFE_IN_TITLE.test(text), {
    message: 'must be one line without control, bidirectional or zero-width characters',
  })
  .describe('Shown on the public page')

const IncidentMessageSchema = z
  .string()
  .regex(/\S/, { message: 'must not be blank' })
  .trim()
  .min(1)
  .max(MAX_MESSAGE_LENGTH)
  .refine((text) => !UNSAFE_IN_MESSAGE.test(text), {
    message:
      'must not contain control (other than line breaks and tabs), bidirectional or zero-width characters',
  })
  .describe('What the update tells the public; plain text, line breaks kept')

export const CreateIncidentInputSchema = z.strictObject({
  statusPageId: IdSchema,
  title: IncidentTitleSchema,
  impact: IncidentImpactSchema,
  probeIds: z
    .array(IdSchema)
    .max(100)
    .default([])
    .describe('Probes the page lists that the incident concerns (an unlisted one is 422)'),
  message: IncidentMessageSchema.describe('The first update, `investigating`'),
})

export const UpdateIncidentInputSchema = z.strictObject({
  id: IdSchema,
  state: IncidentStateSchema.describe(
    '`resolved` sets resolvedAt (a later `resolved` keeps the first); any other state on a resolved incident reopens it',
  ),
  message: IncidentMessageSchema,
})

export const ListIncidentsInputSchema = z.strictObject({ statusPageId: IdSchema, ...pageInput })

export const IncidentListSchema = z.object({
  incidents: z.array(IncidentSchema),
  nextCursor: NextCursorSchema,
})
