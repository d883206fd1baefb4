import type { Db } from '../db/client'
import { type RenderedOutput, renderOutput } from '../rpc/rendered'
import { buildFeed } from './feed'
import { publishedFeedReleases } from './releases'
import { type Feed, FeedSchema } from './schemas'

/**
 * How long an isolate serves its rendered feed without looking at D1. A write on this isolate clears it at
 * once; a write on another isolate (or a mirror pull run elsewhere) shows here within this time.
 */
export const FEED_ISOLATE_TTL_MS = 5_000

interface CachedFeed {
  rendered: RenderedOutput<Feed>
  imageTag: string
  expiresAt: number
}

let cached: CachedFeed | null = null
let generation = 0

/** Drops this isolate's rendered feed; every changelog write calls it after committing. */
export function invalidateFeed(): void {
  generation++
  cached = null
}

/**
 * The rendered feed: from isolate memory while fresh, else rebuilt with one D1 round trip (`db` is asked for the
 * handle only then).
 */
export async function renderedFeed(db: () => Db, imageTag: string): Promise<RenderedOutput<Feed>> {
  const now = Date.now()
  if (cached && cached.imageTag === imageTag && cached.expiresAt > now) {
    return cached.rendered
  }
  // A write that lands while this build reads must not be hidden by it, hence the generation check.
  const startedAt = generation
  const rendered = await renderOutput(FeedSchema, buildFeed(imageTag, await publishedFeedReleases(db())))
  if (startedAt === generation) {
    cached = { rendered, imageTag, expiresAt: now + FEED_ISOLATE_TTL_MS }
  }
  return rendered
}
