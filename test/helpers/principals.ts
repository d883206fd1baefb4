import type { Permission } from '../../src/auth/permissions'
import { type Caller, call, ok } from './http'

export const BOOTSTRAP = { email: 'admin@panel.test', password: 'bootstrap-password-123' }

/** Signs in and returns the session cookie as a Cookie header value. */
export async function signIn(email: string, password: string): Promise<string> {
  const result = await call('auth.login', { email, password }, { origin: null })
  if (result.status !== 200) throw new Error(`sign-in failed ${result.status}: ${result.text}`)
  const setCookie = result.headers.get('set-cookie') ?? ''
  return setCookie.split(';')[0] ?? ''
}

export async function adminSession(): Promise<Caller> {
  return { cookie: await signIn(BOOTSTRAP.email, BOOTSTRAP.password) }
}

let userCount = 0

/** Creates a user of `role` through users.create and signs them in. */
export async function userSession(
  admin: Caller,
  role: 'admin' | 'operator',
): Promise<Caller & { userId: string }> {
  const email = `${role}${++userCount}-${crypto.randomUUID().slice(0, 8)}@panel.test`
  const password = `${role}-password-123`
  const user = await ok<{ id: string }>('users.create', { email, password, role }, admin)
  return { cookie: await signIn(email, password), userId: user.id }
}

/** Creates an operator through users.create and signs them in. */
export function operatorSession(admin: Caller): Promise<Caller & { userId: string }> {
  return userSession(admin, 'operator')
}

/** Mints an API token through tokens.create as the given principal. */
export async function tokenFor(
  creator: Caller,
  permissions: Permission[],
  expiresAt?: string,
): Promise<Caller & { tokenId: string }> {
  const created = await ok<{ id: string; token: string }>(
    'tokens.create',
    {
      name: `test token ${crypto.randomUUID().slice(0, 8)}`,
      permissions,
      ...(expiresAt ? { expiresAt } : {}),
    },
    creator,
  )
  return { token: created.token, tokenId: created.id }
}
