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
