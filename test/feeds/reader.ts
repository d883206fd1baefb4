import { inject } from 'vitest'

/** Taken before any test spies on fetch (test/helpers/outbound.ts fakes the Worker's outbound requests). */
const realFetch = globalThis.fetch.bind(globalThis)

/** What feedparser read from a feed (see reader-setup.ts). */
export interface ReadFeed {
  bozo: number | boolean
  bozoException: string
  /** `atom10` or `rss20`. */
  version: string
  feed: { id?: string; title?: string; link?: string; updated?: string; subtitle?: string }
  links: { rel: string; href: string }[]
  entries: {
    id: string
    title: string
    link: string
    updated?: string
    published?: string
    summary?: string
  }[]
}

/** Has Debian's feedparser read `xml`, as a feed reader would. */
export async function readFeed(xml: string): Promise<ReadFeed> {
  const answer = await realFetch(inject('feedReader'), { method: 'POST', body: xml })
  if (answer.status !== 200)
    throw new Error(`the feed reader answered ${answer.status}: ${await answer.text()}`)
  return (await answer.json()) as ReadFeed
}
