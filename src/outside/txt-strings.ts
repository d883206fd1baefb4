// One TXT character-string holds at most 255 bytes; longer values are split into several strings.
const TXT_STRING_BYTES = 255

/** Splits a TXT value into character-strings of at most 255 UTF-8 bytes, never inside a character. */
export function txtStrings(value: string): string[] {
  const encoder = new TextEncoder()
  const strings: string[] = []
  let current = ''
  let bytes = 0
  for (const ch of value) {
    const size = encoder.encode(ch).length
    if (bytes + size > TXT_STRING_BYTES) {
      strings.push(current)
      current = ''
      bytes = 0
    }
    current += ch
    bytes += size
  }
  strings.push(current)
  return strings
}

/** A TXT value in zone-file form: quoted character-strings of at most 255 bytes each, `\` and `"` escaped. */
export function quoteTxt(value: string): string {
  return txtStrings(value)
    .map((chunk) => `"${chunk.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`)
    .join(' ')
}

/**
 * Joins the character-strings of a zone-file TXT content back into the text, undoing `\"`, `\\` and `\DDD`
 * (bytes, decoded as UTF-8).
 */
export function unquoteTxt(content: string): string {
  const encoder = new TextEncoder()
  const bytes: number[] = []
  let inside = false
  // By code point, so a character outside the BMP is one character, not two halves of one.
  const at = (i: number) => String.fromCodePoint(content.codePointAt(i) ?? 0)
  for (let i = 0; i < content.length; i += at(i).length) {
    const ch = at(i)
    if (ch === '"') {
      inside = !inside
      continue
    }
    if (!inside) continue
    if (ch === '\\') {
      const digits = content.slice(i + 1, i + 4)
      if (/^\d{3}$/.test(digits)) {
        bytes.push(Number(digits))
        i += 3
      } else if (i + 1 < content.length) {
        const escaped = at(i + 1)
        bytes.push(...encoder.encode(escaped))
        i += escaped.length
      }
      continue
    }
    bytes.push(...encoder.encode(ch))
  }
  return new TextDecoder().decode(Uint8Array.from(bytes))
}

/** The text of TXT content as a provider lists it: quoted character-strings unquoted, bare text as it is. */
export function txtText(content: string): string {
  return content.trimStart().startsWith('"') ? unquoteTxt(content) : content
}
