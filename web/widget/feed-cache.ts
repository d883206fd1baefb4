import { type Feed, parseFeed } from './feed'

/** The part of localStorage the widget uses. */
export interface KeyValueStore {
  getItem(key: string): string | null
  setItem(key: string, value: string): void
}

interface FeedResponse {
  status: number
  headers: { get(name: string): string | null }
  text(): Promise<string>
}

/** The part of fetch the widget uses: the feed is public, so no credential is ever sent. */
export type FeedFetch = (
  url: string,
  init: { credentials: 'omit'; headers: Record<string, string> },
) => Promise<FeedResponse>

interface Stored {
  etag: string
  feed: Feed
}

/** The storage key of one panel's feed: a page may embed widgets of several panels. */
export function cacheKey(origin: string): string {
  return `hosting-panel-changelog:${origin}`
}

function readStored(storage: KeyValueStore | null, key: string): Stored | null {
  try {
    const value: unknown = JSON.parse(storage?.getItem(key) ?? 'null')
    if (typeof value !== 'object' || value === null || !('etag' in value) || !('body' in value)) return null
    const { etag, body } = value
    if (typeof etag !== 'string' || typeof body !== 'string') return null
    const feed = parseFeed(body)
    return feed ? { etag, feed } : null
  } catch {
    return null
  }
}

function writeStored(storage: KeyValueStore | null, key: string, etag: string, body: string): void {
  try {
    storage?.setItem(key, JSON.stringify({ etag, body }))
  } catch {
    // Storage full or refused (private mode, blocked cookies): the widget still works, only without the 304.
  }
}

/**
 * The panel's feed, fetched with the stored ETag so an unchanged feed costs a 304. Never rejects: a failed
 * fetch or an unreadable answer gives the last good copy, or null when there is none.
 */
export async function loadFeed(
  origin: string,
  deps: { fetch: FeedFetch; storage: KeyValueStore | null },
): Promise<Feed | null> {
  const key = cacheKey(origin)
  const stored = readStored(deps.storage, key)
  try {
    const response = await deps.fetch(`${origin}/api/v1/meta/changelog`, {
      credentials: 'omit',
      headers: stored ? { 'if-none-match': stored.etag } : {},
    })
    // 304 means the stored copy is current; any other failure keeps it too.
    if (response.status !== 200) return stored?.feed ?? null
    const body = await response.text()
    const feed = parseFeed(body)
    if (!feed) return stored?.feed ?? null
    const etag = response.headers.get('etag')
    if (etag) writeStored(deps.storage, key, etag, body)
    return feed
  } catch {
    return stored?.feed ?? null
  }
}
