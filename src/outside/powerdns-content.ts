import { absoluteName, bareName } from '../lib/dns-name'
import { quoteTxt, unquoteTxt } from './txt-strings'

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
