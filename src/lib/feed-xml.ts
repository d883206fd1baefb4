/** One entry (Atom) or item (RSS) of a feed. */
export interface FeedEntry {
  /** A stable, globally unique id: a `tag:` URI. The same entry always carries the same id. */
  id: string
  title: string
  /** When the entry last changed in a way readers should see. */
  updated: Date
  /** The page a reader opens for it. */
  link: string
  /** Plain text; each line becomes a paragraph. */
  text: string
}

/** A feed as both formats need it; rendered by renderAtom and renderRss. */
export interface FeedDocument {
  id: string
  title: string
  subtitle: string
  /** The page the feed is about, and the entries' too. */
  link: string
  /** The media type of the links (`text/html` for a page). */
  linkType: string
  /** The feed's own URL (`rel="self"`). */
  self: string
  /** The latest of the entries' updated, or when the subject itself last changed. */
  updated: Date
  author: string
  entries: FeedEntry[]
}

// XML 1.0 allows no other control characters, not even escaped: a reader refuses the whole document.
// biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point.
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g

/** Text escaped for XML character data and attribute values alike. */
export function escapeXml(text: string): string {
  return text
    .replace(NOT_XML, '')
    .replace(
      /[&<>"']/g,
      (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c] ?? c,
    )
}

/** The plain text as HTML paragraphs (itself escaped again when placed in the XML). */
function paragraphs(text: string): string {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => `<p>${escapeXml(line)}</p>`)
    .join('')
}

/** A `tag:` URI (RFC 4151) under the panel's host, minted on `date` (YYYY-MM-DD), naming `path`. */
export function tagUri(origin: string, date: Date, path: string): string {
  return `tag:${new URL(origin).hostname},${date.toISOString().slice(0, 10)}:${path}`
}

const XML_DECLARATION = '<?xml version="1.0" encoding="utf-8"?>\n'

/** An Atom 1.0 document (RFC 4287). */
export function renderAtom(feed: FeedDocument): string {
  const type = escapeXml(feed.linkType)
  const entries = feed.entries.map(
    (entry) =>
      `<entry><id>${escapeXml(entry.id)}</id><title type="text">${escapeXml(entry.title)}</title>` +
      `<updated>${entry.updated.toISOString()}</updated>` +
      `<link rel="alternate" type="${type}" href="${escapeXml(entry.link)}"/>` +
      `<content type="html">${escapeXml(paragraphs(entry.text))}</content></entry>\n`,
  )
  return (
    `${XML_DECLARATION}<feed xmlns="http://www.w3.org/2005/Atom">\n` +
    `<id>${escapeXml(feed.id)}</id><title type="text">${escapeXml(feed.title)}</title>` +
    `<subtitle type="text">${escapeXml(feed.subtitle)}</subtitle>` +
    `<updated>${feed.updated.toISOString()}</updated>` +
    `<author><name>${escapeXml(feed.author)}</name></author>` +
    `<link rel="alternate" type="${type}" href="${escapeXml(feed.link)}"/>` +
    `<link rel="self" type="application/atom+xml" href="${escapeXml(feed.self)}"/>\n` +
    `${entries.join('')}</feed>\n`
  )
}

/** An RSS 2.0 document; dates in RFC 822 (with four-digit years, as RSS readers expect). */
export function renderRss(feed: FeedDocument): string {
  const items = feed.entries.map(
    (entry) =>
      `<item><title>${escapeXml(entry.title)}</title><link>${escapeXml(entry.link)}</link>` +
      `<guid isPermaLink="false">${escapeXml(entry.id)}</guid>` +
      `<pubDate>${entry.updated.toUTCString()}</pubDate>` +
      `<description>${escapeXml(paragraphs(entry.text))}</description></item>\n`,
  )
  return (
    `${XML_DECLARATION}<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom"><channel>\n` +
    `<title>${escapeXml(feed.title)}</title><link>${escapeXml(feed.link)}</link>` +
    `<description>${escapeXml(feed.subtitle)}</description>` +
    `<lastBuildDate>${feed.updated.toUTCString()}</lastBuildDate>` +
    `<atom:link rel="self" type="application/rss+xml" href="${escapeXml(feed.self)}"/>\n` +
    `${items.join('')}</channel></rss>\n`
  )
}

export const FEED_CONTENT_TYPES = {
  atom: 'application/atom+xml; charset=utf-8',
  rss: 'application/rss+xml; charset=utf-8',
} as const
export type FeedFormat = keyof typeof FEED_CONTENT_TYPES
