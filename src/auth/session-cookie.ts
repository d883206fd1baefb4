export const SESSION_COOKIE = '__Host-panel_session'
/** Sessions last 7 days from sign-in; signing out or a password change ends them sooner. */
export const SESSION_TTL_MS = 7 * 24 * 60 * 60 * 1000

export function sessionCookie(value: string, maxAgeSeconds: number): string {
  return `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; Secure; SameSite=Lax; Max-Age=${maxAgeSeconds}`
}

export function readSessionCookie(header: string | undefined): string | undefined {
  if (!header) return undefined
  for (const part of header.split(';')) {
    const [name, ...rest] = part.trim().split('=')
    if (name === SESSION_COOKIE) return rest.join('=')
  }
  return undefined
}
