/** Carries a D1 bookmark both ways on procedure calls. */
export const BOOKMARK_HEADER = 'x-d1-bookmark'
/** The pages' copy of the newest bookmark their browser was given. */
export const BOOKMARK_COOKIE = '__Host-panel_d1_bookmark'

/**
 * D1's bookmark form, `00000085-0000024c-00004c6d-8e61117bf38d7adb71b934ebbf891683`: fixed-width hex, so the text
 * order of two bookmarks is their order in time. The panel checks the form itself: D1 in production throws on a
 * bookmark it cannot read (a 500 to the caller), and the local runtime takes any text without a word.
 */
export const BOOKMARK_PATTERN = '^[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32}$'
const BOOKMARK = new RegExp(BOOKMARK_PATTERN)

/** The bookmark in its canonical (lower-case) form, or null when the text is not one. */
export function parseBookmark(text: string): string | null {
  const bookmark = text.trim().toLowerCase()
  return BOOKMARK.test(bookmark) ? bookmark : null
}

/** The later of two bookmarks. */
export function newerBookmark(a: string | null, b: string | null): string | null {
  if (a === null || b === null) return a ?? b
  return a >= b ? a : b
}

/** The bookmark cookie's value, or null when there is none or it is not a bookmark (a browser cannot fix it). */
export function readBookmarkCookie(header: string | undefined): string | null {
  if (!header) return null
  for (const part of header.split(';')) {
    const [name, value] = part.trim().split('=')
    if (name === BOOKMARK_COOKIE && value !== undefined) return parseBookmark(value)
  }
  return null
}

/** A browser-session cookie: it only has to outlive the few seconds a replica may lag. */
export function bookmarkCookie(bookmark: string): string {
  return `${BOOKMARK_COOKIE}=${bookmark}; Path=/; HttpOnly; Secure; SameSite=Lax`
}
