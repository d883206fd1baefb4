import { BoundedMap } from '../lib/bounded-map'
import type { Principal } from './principal'

/**
 * How long an isolate reuses a bearer token's principal without reading D1. A revocation, a role change or a
 * removed user committed on this isolate clears the cache at once; one committed elsewhere (another isolate, a
 * straight D1 write) reaches this isolate within this time. An expiry (the token's or an ancestor's) is never
 * outlived: an entry ends at the earliest of them.
 */
export const PRINCIPAL_CACHE_MS = 5_000

interface Entry {
  principal: Principal
  until: number
}

/** At most 10,000 entries; the oldest goes first. */
const entries = new BoundedMap<string, Entry>(10_000)
let generation = 0

/** The principal of a token (by its hash) while its entry lasts. */
export function cachedPrincipal(tokenHash: string, now: number): Principal | undefined {
  const entry = entries.get(tokenHash)
  if (!entry) return undefined
  if (entry.until > now) return entry.principal
  entries.delete(tokenHash)
  return undefined
}

/** Where a lookup starts: pass it to `rememberPrincipal`, which then keeps nothing a later write may have changed. */
export function principalGeneration(): number {
  return generation
}

/** Keeps a principal read from D1 until `until` (at most PRINCIPAL_CACHE_MS from `now`). */
export function rememberPrincipal(
  tokenHash: string,
  principal: Principal,
  now: number,
  until: number,
  readAt: number,
): void {
  if (readAt !== generation) return
  entries.set(tokenHash, { principal, until: Math.min(until, now + PRINCIPAL_CACHE_MS) })
}

/** Forgets every principal of this isolate; every committed change calls it. */
export function forgetPrincipals(): void {
  generation++
  entries.clear()
}
