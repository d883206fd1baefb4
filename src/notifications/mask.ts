/** An email address as the delivery log shows it: `o***@example.com`. */
export function maskEmail(address: string): string {
  const at = address.lastIndexOf('@')
  if (at < 1) return '***'
  return `${address.slice(0, 1)}***${address.slice(at)}`
}

/** A webhook URL without what may carry a credential: its query string and userinfo become `***`. */
export function maskUrl(url: string): string {
  if (!URL.canParse(url)) return '***'
  const parsed = new URL(url)
  const userinfo = parsed.username || parsed.password ? '***@' : ''
  return `${parsed.protocol}//${userinfo}${parsed.host}${parsed.pathname}${parsed.search ? '?***' : ''}`
}
