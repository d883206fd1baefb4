import { z } from '@hono/zod-openapi'

/** Longest id an input accepts: ours are UUIDs; the bound keeps a 404 from echoing a huge id. */
export const MAX_ID_LENGTH = 128

/** An id in an input (a node's, a release's, …). */
export const IdSchema = z.string().min(1).max(MAX_ID_LENGTH)

/** `{ id }` input shared by get and remove procedures. */
export const IdInputSchema = z.strictObject({ id: IdSchema })

/** Longest URL an input accepts (the common browser and CDN limit). */
export const MAX_URL_LENGTH = 2048

export const HttpUrlSchema = z
  .url({ protocol: /^https?$/, error: 'must be an http or https URL' })
  .max(MAX_URL_LENGTH)

// Controls (C0, DEL, C1), format characters (bidi embeddings, overrides, isolates and marks, zero-width
// characters, the BOM) and lone surrogates: invisible or reordering text that makes one name look like another.
const UNSAFE_IN_NAME = /[\p{Cc}\p{Cf}\p{Cs}]/u

/** A display name (of a node, instance, site, token, account …): one visible line of 1 to 100 characters. */
export const NameSchema = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .refine((name) => !UNSAFE_IN_NAME.test(name), {
    message: 'must not contain control, bidirectional, zero-width or unpaired surrogate characters',
  })

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
