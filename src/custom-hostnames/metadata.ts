import { z } from '@hono/zod-openapi'

/** The most bytes a hostname's metadata takes: its JSON, serialized as UTF-8. */
export const MAX_METADATA_BYTES = 4096

export type Metadata = Record<string, string | number | boolean | null>

const metadataBytes = (metadata: Metadata) => new TextEncoder().encode(JSON.stringify(metadata)).length

// Flat, like Cloudflare's typed custom_metadata: a value that is an object or an array is refused by name, so
// what an app stores is what every reader (a rule, a webhook consumer) can take without walking a tree.
export const MetadataSchema = z
  .record(
    z.string().min(1, 'must not be empty').max(MAX_METADATA_BYTES),
    z.union([z.string().max(MAX_METADATA_BYTES), z.number(), z.boolean(), z.null()], {
      error: 'must be a string, a number, a boolean or null (no nested objects or arrays)',
    }),
    { error: 'must be a JSON object' },
  )
  .superRefine((metadata, ctx) => {
    const bytes = metadataBytes(metadata)
    if (bytes > MAX_METADATA_BYTES)
      ctx.addIssue({
        code: 'custom',
        message: `is ${bytes} bytes of JSON (UTF-8); at most ${MAX_METADATA_BYTES} bytes`,
      })
  })
  .openapi('CustomHostnameMetadata', {
    description: `The app's own data on the hostname (a customer id, a plan), as Cloudflare's custom_metadata: a flat JSON object of strings, numbers, booleans and nulls, at most ${MAX_METADATA_BYTES} bytes serialized as UTF-8 JSON. Shown in status, list and the operational notifications naming the hostname; never read by the panel`,
  })

/** The metadata field of an answer: present only when the row holds some. */
export function metadataField(metadata: Metadata | null): { metadata?: Metadata } {
  return metadata ? { metadata } : {}
}
