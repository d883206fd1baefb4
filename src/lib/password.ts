import { fromBase64Url, randomBytes, toBase64Url } from './encoding'
import { timingSafeEqual } from './hash'

// workerd refuses PBKDF2 above 100,000 iterations.
const ITERATIONS = 100_000
const encoder = new TextEncoder()

async function derive(password: string, salt: Uint8Array, iterations: number): Promise<string> {
  const key = await crypto.subtle.importKey('raw', encoder.encode(password), 'PBKDF2', false, ['deriveBits'])
  const bits = await crypto.subtle.deriveBits({ name: 'PBKDF2', hash: 'SHA-256', salt, iterations }, key, 256)
  return toBase64Url(new Uint8Array(bits))
}

/** Hashes a password as `pbkdf2-sha256$<iterations>$<salt>$<hash>` with a fresh per-user salt. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16)
  return `pbkdf2-sha256$${ITERATIONS}$${toBase64Url(salt)}$${await derive(password, salt, ITERATIONS)}`
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, iterations, salt, hash] = stored.split('$')
  if (scheme !== 'pbkdf2-sha256' || !iterations || !salt || !hash) return false
  return timingSafeEqual(await derive(password, fromBase64Url(salt), Number(iterations)), hash)
}
