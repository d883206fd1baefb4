import { describe, expect, it } from 'vitest'
import type { Feed } from '../../web/widget/feed'
import { cacheKey, type FeedFetch, type KeyValueStore, loadFeed } from '../../web/widget/feed-cache'

const origin = 'https://panel.example.com'
const feed: Feed = {
  imageTag: 'v1.2.0',
  currentVersion: '1.2.0',
  releases: [
    { version: '1.2.0', title: 'Faster', date: '2026-11-03', severity: 'minor', summary: null, items: [] },
  ],
}

function memoryStore(
  entries: Record<string, string> = {},
): KeyValueStore & { entries: Record<string, string> } {
  return {
    entries,
    getItem: (key) => entries[key] ?? null,
    setItem: (key, value) => {
      entries[key] = value
    },
  }
}

interface Call {
  url: string
  credentials: string
  headers: Record<string, string>
}

function fakeFetch(status: number, body = '', etag: string | null = null): FeedFetch & { calls: Call[] } {
  const calls: Call[] = []
  const fetch: FeedFetch = async (url, init) => {
    calls.push({ url, credentials: init.credentials, headers: init.headers })
    return {
      status,
      headers: { get: (name) => (name.toLowerCase() === 'etag' ? etag : null) },
      text: async () => body,
    }
  }
  return Object.assign(fetch, { calls })
}

describe('loadFeed', () => {
  it('should fetch the public feed without credentials and keep the body and ETag per panel origin', async () => {
    const storage = memoryStore()
    const fetch = fakeFetch(200, JSON.stringify(feed), '"v1"')
    expect(await loadFeed(origin, { fetch, storage })).toEqual(feed)
    expect(fetch.calls).toEqual([
      { url: 'https://panel.example.com/api/v1/meta/changelog', credentials: 'omit', headers: {} },
    ])
    expect(JSON.parse(storage.entries[cacheKey(origin)] ?? '')).toEqual({
      etag: '"v1"',
      body: JSON.stringify(feed),
    })
    expect(cacheKey(origin)).not.toBe(cacheKey('https://other.example.com'))
  })

  it('should send If-None-Match and reuse the stored body on 304', async () => {
    const storage = memoryStore({
      [cacheKey(origin)]: JSON.stringify({ etag: '"v1"', body: JSON.stringify(feed) }),
    })
    const fetch = fakeFetch(304)
    expect(await loadFeed(origin, { fetch, storage })).toEqual(feed)
    expect(fetch.calls[0]?.headers).toEqual({ 'if-none-match': '"v1"' })
  })

  it('should replace the stored copy when the feed changed', async () => {
    const storage = memoryStore({
      [cacheKey(origin)]: JSON.stringify({ etag: '"v1"', body: JSON.stringify(feed) }),
    })
    const next = { ...feed, releases: [] }
    expect(await loadFeed(origin, { fetch: fakeFetch(200, JSON.stringify(next), '"v2"'), storage })).toEqual(
      next,
    )
    expect(JSON.parse(storage.entries[cacheKey(origin)] ?? '')).toEqual({
      etag: '"v2"',
      body: JSON.stringify(next),
    })
  })

  it('should not send If-None-Match for a stored copy it cannot read', async () => {
    const storage = memoryStore({ [cacheKey(origin)]: JSON.stringify({ etag: '"v1"', body: '{not json' }) })
    const fetch = fakeFetch(200, JSON.stringify(feed), '"v1"')
    expect(await loadFeed(origin, { fetch, storage })).toEqual(feed)
    expect(fetch.calls[0]?.headers).toEqual({})
  })

  it('should show the last good copy when the fetch fails, and null without one', async () => {
    const stored = { [cacheKey(origin)]: JSON.stringify({ etag: '"v1"', body: JSON.stringify(feed) }) }
    const failing: FeedFetch = async () => {
      throw new TypeError('Failed to fetch')
    }
    expect(await loadFeed(origin, { fetch: failing, storage: memoryStore({ ...stored }) })).toEqual(feed)
    expect(
      await loadFeed(origin, { fetch: fakeFetch(500, 'oops'), storage: memoryStore({ ...stored }) }),
    ).toEqual(feed)
    expect(await loadFeed(origin, { fetch: failing, storage: memoryStore() })).toBeNull()
    expect(await loadFeed(origin, { fetch: fakeFetch(200, '<html>'), storage: memoryStore() })).toBeNull()
    expect(await loadFeed(origin, { fetch: fakeFetch(304), storage: memoryStore() })).toBeNull()
  })

  it('should work without storage and survive a storage that throws', async () => {
    expect(
      await loadFeed(origin, { fetch: fakeFetch(200, JSON.stringify(feed), '"v1"'), storage: null }),
    ).toEqual(feed)
    const throwing: KeyValueStore = {
      getItem: () => {
        throw new Error('SecurityError')
      },
      setItem: () => {
        throw new Error('QuotaExceededError')
      },
    }
    expect(
      await loadFeed(origin, { fetch: fakeFetch(200, JSON.stringify(feed), '"v1"'), storage: throwing }),
    ).toEqual(feed)
  })
})
