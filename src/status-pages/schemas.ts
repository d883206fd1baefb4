import { z } from '@hono/zod-openapi'
import { NextCursorSchema, pageInput } from '../lib/paging'
import { IdSchema, NameSchema } from '../lib/schemas'

export const SlugSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, {
    message: 'must be lowercase letters, digits and single hyphens, not starting or ending with a hyphen',
  })
  .describe('The page\u2019s address: /status/<slug>')

const StatusPageProbeSchema = z.strictObject({
  probeId: IdSchema,
  displayName: NameSchema.describe('What the public sees instead of the probe\u2019s own name'),
})

const StatusPageGroupSchema = z.strictObject({
  name: NameSchema,
  probes: z.array(StatusPageProbeSchema).min(1).max(50),
})

const GroupsSchema = z.array(StatusPageGroupSchema).max(20)

const AutoIncidentsSchema = z
  .boolean()
  .describe(
    'Open an incident when a listed probe goes down (unless maintenance covers it) and resolve it when the probe is back up',
  )

const DescriptionSchema = z.string().trim().max(1000)

export const CreateStatusPageInputSchema = z.strictObject({
  slug: SlugSchema,
  title: NameSchema,
  description: DescriptionSchema.optional(),
  groups: GroupsSchema.default([]),
  public: z.boolean().default(false).describe('Whether anyone may read the page, its JSON and its badge'),
  autoIncidents: AutoIncidentsSchema.default(false),
})

export const UpdateStatusPageInputSchema = z.strictObject({
  id: IdSchema,
  slug: SlugSchema.optional(),
  title: NameSchema.optional(),
  description: DescriptionSchema.nullable().optional().describe('null removes it'),
  groups: GroupsSchema.optional().describe('Replaces the groups whole'),
  public: z.boolean().optional(),
  autoIncidents: AutoIncidentsSchema.optional(),
})

export const StatusPageSchema = z
  .object({
    id: z.string(),
    slug: z.string(),
    title: z.string(),
    description: z.string().nullable(),
    groups: z.array(
      z.object({
        name: z.string(),
        probes: z.array(z.object({ probeId: z.string(), displayName: z.string() })),
      }),
    ),
    public: z.boolean(),
    autoIncidents: z.boolean().describe('Whether a listed probe going down opens an incident by itself'),
    url: z.string().describe('The public page\u2019s address'),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('StatusPage')

export const ListStatusPagesInputSchema = z.strictObject({ ...pageInput })

export const StatusPageListSchema = z.object({
  statusPages: z.array(StatusPageSchema),
  nextCursor: NextCursorSchema,
})
