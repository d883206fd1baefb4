import { z } from '@hono/zod-openapi'

/** `{ id }` input shared by get and remove procedures. */
export const IdInputSchema = z.strictObject({ id: z.string().min(1) })

export const HttpUrlSchema = z.url({ protocol: /^https?$/, error: 'must be an http or https URL' })

/** A lowercase DNS hostname: labels of letters, digits and hyphens, at most 253 characters. */
export const HostnameSchema = z
  .string()
  .max(253)
  .regex(
    /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*\.?$/,
    {
      message: 'must be a lowercase hostname',
    },
  )

export const RemovedSchema = z.object({ removed: z.literal(true) })
