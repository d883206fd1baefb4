import type { Procedures } from 'hosting-panel-api/client'

/** The public changelog feed, typed by the panel's own client (a type only: nothing of the client is bundled). */
export type Feed = Procedures['meta']['changelog']['output']
export type FeedRelease = Feed['releases'][number]
export type ItemCategory = FeedRelease['items'][number]['category']

/**
 * The feed read from text, or null when it is not JSON with a releases list. The panel validates what it
 * serves; this only guards against a stored copy that another script or an old widget version left behind.
 */
export function parseFeed(text: string): Feed | null {
  try {
    const value: unknown = JSON.parse(text)
    if (typeof value !== 'object' || value === null || !('releases' in value)) return null
    return Array.isArray(value.releases) ? (value as Feed) : null
  } catch {
    return null
  }
}
