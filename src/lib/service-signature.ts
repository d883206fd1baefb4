import { hmacSha256Hex, timingSafeEqual } from './hash.ts'

export const SIGNATURE_HEADER = 'x-service-signature'
export const TIMESTAMP_HEADER = 'x-service-timestamp'
/** How far a signed timestamp may be from the verifier's clock, in either direction. */
export const SIGNATURE_TOLERANCE_MS = 5 * 60 * 1000

/** `sha256=<hex HMAC-SHA256 of "<timestamp>.<raw body>">` keyed by the shared secret. */
export async function serviceSignature(
  secret: string,
  timestamp: number | string,
  rawBody: string,
): Promise<string> {
  return `sha256=${await hmacSha256Hex(secret, `${timestamp}.${rawBody}`)}`
}

/** The two headers that sign an outgoing webhook body (changelog and probe deliveries). */
export async function signatureHeaders(
  secret: string,
  rawBody: string,
  now = Date.now(),
): Promise<Record<string, string>> {
  return {
    [TIMESTAMP_HEADER]: String(now),
    [SIGNATURE_HEADER]: await serviceSignature(secret, now, rawBody),
  }
}

export type SignatureVerdict = { ok: true } | { ok: false; reason: string }

type HeaderSource = Headers | Record<string, string | undefined>

function header(headers: HeaderSource, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined
  const key = Object.keys(headers).find((k) => k.toLowerCase() === name)
  const value = key === undefined ? undefined : headers[key]
  return typeof value === 'string' ? value : undefined
}

/**
 * Verifies a signed delivery: pass the raw body exactly as received, before any JSON parsing. Rejects
 * missing headers and timestamps more than 5 minutes from `now`, and compares in constant time. It never
 * throws: a missing or empty secret or missing headers are a failed verdict like any other.
 */
export async function verifyServiceSignature(
  rawBody: string,
  headers: HeaderSource | null | undefined,
  secret: string | null | undefined,
  now = Date.now(),
): Promise<SignatureVerdict> {
  if (typeof secret !== 'string' || secret === '') return { ok: false, reason: 'no secret to verify with' }
  if (headers === null || typeof headers !== 'object') {
    return { ok: false, reason: 'missing signature or timestamp header' }
  }
  const signature = header(headers, SIGNATURE_HEADER)
  const timestamp = header(headers, TIMESTAMP_HEADER)
  if (!signature || !timestamp) return { ok: false, reason: 'missing signature or timestamp header' }
  if (!/^\d+$/.test(timestamp))
    return { ok: false, reason: 'the timestamp is not a millisecond epoch number' }
  if (Math.abs(now - Number(timestamp)) > SIGNATURE_TOLERANCE_MS) {
    return { ok: false, reason: 'the timestamp is more than 5 minutes away' }
  }
  // Sign the header text exactly as received: the sender signed those bytes, not a re-rendered number.
  const expected = await serviceSignature(secret, timestamp, rawBody)
  return timingSafeEqual(expected, signature)
    ? { ok: true }
    : { ok: false, reason: 'the signature does not match' }
}
