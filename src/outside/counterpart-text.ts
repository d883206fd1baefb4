// Enough of a counterpart's message to act on; a longer body is a page, a dump or a stack, not a message.
const MAX_QUOTED = 200

/**
 * A counterpart's error text fit to quote in an answer: trimmed and cut to 200 characters, or null when it is
 * empty or holds one of `withheld` (a secret the panel just sent, which an echoing counterpart hands back).
 */
export function quotableText(text: string, withheld: readonly string[]): string | null {
  const trimmed = text.trim()
  if (!trimmed || withheld.some((secret) => secret && trimmed.includes(secret))) return null
  return trimmed.length > MAX_QUOTED ? `${trimmed.slice(0, MAX_QUOTED)}…` : trimmed
}

/** The `error` string of a JSON body `{"error": ...}`, or null when the body is not one. */
export function jsonErrorField(text: string): string | null {
  try {
    const parsed: unknown = JSON.parse(text)
    if (parsed && typeof parsed === 'object' && 'error' in parsed && typeof parsed.error === 'string') {
      return parsed.error
    }
  } catch {}
  return null
}
