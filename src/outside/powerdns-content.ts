import { absoluteName, bareName } from '../lib/dns-name'
import { quoteTxt } from './txt-strings'

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

/** Turns a panel value (as validated for its type) into PowerDNS record content. */
export function toContent(type: string, value: string): string {
  switch (type) {
    case 'CNAME':
      return absoluteName(value)
    case 'MX': {
      const [priority, host] = value.split(' ')
      return `${priority} ${absoluteName(host ?? '.')}`
    }
    case 'TXT':
      return quoteTxt(value)
    default:
      return value
  }
}

/** Turns PowerDNS record content back into the panel's form of the value; other types pass unchanged. */
export function fromContent(type: string, content: string): string {
  switch (type) {
    case 'CNAME':
    case 'NS':
      return bareName(content)
    case 'MX': {
      const [priority, host] = content.split(' ')
      return `${priority} ${bareName(host ?? '.')}`
    }
    case 'TXT':
      return unquoteTxt(content)
    default:
      return content
  }
}
