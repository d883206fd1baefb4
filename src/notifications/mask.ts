/** An email address as the delivery log shows it: `o***@example.com`. */
export function maskEmail(address: string): string {
  const at = address.lastIndexOf('@')
  if (at < 1) return '***'
  return `${address.slice(0, 1)}***${address.slice(at)}`
}
