import type { z } from '@hono/zod-openapi'
import { sha256Hex } from '../lib/hash'

/**
 * An output already checked against its schema and serialised, with a strong ETag over those bytes or none. A
 * handler may return one instead of a plain value; the transport then skips the output check and serialisation,
 * and with an ETag sends it and answers 304 to a matching If-None-Match.
 */
export class RenderedOutput<T> {
  // Ties the rendered bytes to the output type they were checked against.
  declare private readonly output: T

  constructor(
    readonly json: string,
    readonly etag: string | null,
  ) {}
}

/** Checks a value against an output schema and serialises it once, for a handler to serve many times. */
export async function renderOutput<S extends z.ZodType>(
  schema: S,
  value: z.input<S>,
): Promise<RenderedOutput<z.input<S>>> {
  const json = JSON.stringify(schema.parse(value))
  return new RenderedOutput(json, `"${(await sha256Hex(json)).slice(0, 32)}"`)
}

/**
 * `renderOutput` without an ETag, for an answer kept briefly that is not a conditional GET (a POST procedure may
 * not answer 304).
 */
export function serializeOutput<S extends z.ZodType>(
  schema: S,
  value: z.input<S>,
): RenderedOutput<z.input<S>> {
  return new RenderedOutput(JSON.stringify(schema.parse(value)), null)
}

/** If-None-Match matches `etag` (weak comparison, as RFC 9110 specifies for this header) or is `*`. */
export function ifNoneMatchHits(header: string | undefined, etag: string): boolean {
  if (!header) return false
  if (header.trim() === '*') return true
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag)
}
