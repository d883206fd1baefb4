const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/

/** 4 or 6 when the text is an IPv4 or IPv6 address, else 0. */
export function isIP(text: string): 0 | 4 | 6 {
  if (IPV4.test(text)) return 4
  return text.includes(':') && /^[0-9a-f:.]+$/i.test(text) ? 6 : 0
}
