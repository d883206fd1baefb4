/** How long a lookup's answer is reused, and how long a status call waits for a fresh one. */
export const RESOLVES_CACHE_MS = 30_000
export const RESOLVES_WAIT_MS = 1_000
