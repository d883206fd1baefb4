// Enough of a counterpart's message to act on; a longer body is a page, a dump or a stack, not a message.
const MAX_QUOTED = 200
// A run this long of a secret is worth withholding: enough to narrow a brute force, even with its case lost.
const SECRET_RUN = 8

function holdsPartOf(text: string, secret: string): boolean {
  const needle = secret.toLowerCase()
  if (!needle) return false
  if (needle.length <= SECRET_RUN) return text.includes(needle)
  for (let i = 0; i + SECRET_RUN <= needle.length; i++) {
    if (text.includes(needle.slice(i, i + SECRET_RUN))) return true
  }
  return false
}

/**
 * The one way counterpart text (a DNS provider's, node agent's, PowerDNS's, webhook receiver's or upstream's
 * words) reaches an answer or a stored detail: trimmed and cut to 200 characters, or null when it is empty or
 * holds 8 or more consecutive characters of one of `withheld` (the secrets involved in the call, which an
 * echoing counterpart may hand back in part or with its case changed).
 */
export function quotableText(text: string, withheld: readonly string[]): string | null {
  const trimmed = text.trim()
  if (!trimmed) return null
  const folded = trimmed.toLowerCase()
  if (withheld.some((secret) => holdsPartOf(folded, secret))) return null
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
