import type { Context } from 'hono'
import type { AppEnv } from '../env'
import { BoundedMap } from '../lib/bounded-map'
import { sha256Hex } from '../lib/hash'
import { EDGE_SECONDS } from './freshness'

// How every public face of a status page (its HTML, JSON, badge and feeds, and each probe's badges) is cached:
// one copy per canonical URL, built at most once per EDGE_SECONDS per edge location and isolate, with a strong
// ETag of its body.

const BUILT_AT = 'x-status-built-at'

export interface Built {
  body: string
  etag: string
  builtAt: number
}

/**
 * This isolate's own copies, by canonical URL, under the same bound as the edge copy: a busy page answers from
 * memory without asking the edge cache each time.
 */
const isolateCopies = new BoundedMap<string, Built>(1_000)

function isolateCopy(url: string, now: number): Built | undefined {
  const copy = isolateCopies.get(url)
  if (copy && now - copy.builtAt <= EDGE_SECONDS * 1000) return copy
  isolateCopies.delete(url)
  return undefined
}

/** The edge copy, or undefined when there is none or it was built more than EDGE_SECONDS ago. */
async function edgeCopy(key: Request, now: number): Promise<Built | undefined> {
  const copy = await caches.default.match(key)
  const builtAt = Number(copy?.headers.get(BUILT_AT))
  if (!copy || !(now - builtAt <= EDGE_SECONDS * 1000)) {
    await copy?.body?.cancel()
    return undefined
  }
  return { body: await copy.text(), etag: copy.headers.get('etag') ?? '', builtAt }
}

/**
 * The copy of `key` built within EDGE_SECONDS: this isolate's, else the edge's, else what `build` makes now
 * (stored at the edge as `contentType`); null when `build` finds nothing to show.
 */
export async function cachedCopy(
  c: Context<AppEnv>,
  key: Request,
  contentType: string,
  now: number,
  build: () => Promise<string | null>,
): Promise<Built | null> {
  const copy = isolateCopy(key.url, now) ?? (await edgeCopy(key, now))
  if (copy) {
    isolateCopies.set(key.url, copy)
    return copy
  }
  const body = await build()
  if (body === null) return null
  const etag = `"${(await sha256Hex(body)).slice(0, 32)}"`
  const stored = new Response(body, {
    headers: {
      'content-type': contentType,
      etag,
      'cache-control': `public, max-age=${EDGE_SECONDS}`,
      [BUILT_AT]: String(now),
    },
  })
  c.executionCtx.waitUntil(caches.default.put(key, stored))
  const built = { body, etag, builtAt: now }
  isolateCopies.set(key.url, built)
  return built
}
