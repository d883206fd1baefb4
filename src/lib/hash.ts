import { toHex } from './encoding.ts'

const encoder = new TextEncoder()

/** SHA-256 of a UTF-8 string as lowercase hex: how tokens and session ids are stored. */
export async function sha256Hex(text: string): Promise<string> {
  return toHex(await crypto.subtle.digest('SHA-256', encoder.encode(text)))
}

/** HMAC-SHA256 of a UTF-8 message as lowercase hex. */
export async function hmacSha256Hex(secret: string, message: string): Promise<string> {
  const key = await crypto.subtle.importKey(
    'raw',
    encoder.encode(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  )
  return toHex(await crypto.subtle.sign('HMAC', key, encoder.encode(message)))
}

/**
 * Compares two strings in time that depends only on their lengths. Code unit by code unit, with no encoding: it
 * runs on every heartbeat ping and every signature check, where encoding both sides first cost more than the rest.
 */
export function timingSafeEqual(a: string, b: string): boolean {
  let diff = a.length ^ b.length
  const length = Math.max(a.length, b.length)
  // Past a string's end charCodeAt is NaN, and NaN | 0 is 0: the shorter side reads as zeros.
  for (let i = 0; i < length; i++) diff |= (a.charCodeAt(i) | 0) ^ (b.charCodeAt(i) | 0)
  return diff === 0
}
