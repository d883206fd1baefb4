import { BoundedMap } from '../lib/bounded-map'

/**
 * How long an isolate answers a hot read from its own copy. A read without a bookmark already runs on
 * `first-unconstrained`, which D1 lets lag the primary; this copy is one more such replica, at most this old. A
 * caller that sends a bookmark newer than the copy (its own write, say) reads afresh, and every change committed on
 * this isolate drops every copy.
 */
export const REPLICA_COPY_MS = 2_000

interface Copy {
  value: unknown
  /** The session's bookmark before the read: the copy is at least this new. Null: as new as nothing known. */
  bookmark: string | null
  until: number
}

/** At most 10,000 copies; the oldest goes first. */
const copies = new BoundedMap<string, Copy>(10_000)
let generation = 0

/** What the call knows of D1: the caller's bookmark, and the session the read runs on. */
export interface ReadSession {
  incoming: string | null
  session: { getBookmark(): string | null }
}

/** The read's answer from this isolate's copy while it lasts and is as new as the caller's bookmark, else read. */
export async function replicaCopy<T>(
  call: ReadSession,
  key: string,
  read: () => Promise<T>,
  now = Date.now(),
): Promise<T> {
  const copy = copies.get(key)
  if (copy && copy.until > now && isNewEnough(copy.bookmark, call.incoming)) return copy.value as T
  const readAt = generation
  const bookmark = call.session.getBookmark()
  const value = await read()
  if (readAt === generation) copies.set(key, { value, bookmark, until: now + REPLICA_COPY_MS })
  return value
}

/** Puts a newer value in place of a copy that still lasts (what the call learned after reading it). */
export function updateReplicaCopy(key: string, value: unknown): void {
  const copy = copies.get(key)
  if (copy) copy.value = value
}

/** Drops every copy; every committed change calls it. */
export function forgetReplicaCopies(): void {
  generation++
  copies.clear()
}

function isNewEnough(copy: string | null, incoming: string | null): boolean {
  if (incoming === null) return true
  return copy !== null && copy >= incoming
}
