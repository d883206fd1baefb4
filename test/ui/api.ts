import { randomUUID } from 'node:crypto'
import { inject } from 'vitest'
import { SESSION_COOKIE } from '../../src/auth/session-cookie.ts'
import { type Client, createClient } from '../../src/client/index.ts'

// The panel's API from the UI tests (Node): seed what a page should show, or create the principal it is
// opened as. Calls go through the project's typed client, signed in by a session cookie like the pages.

export interface Credentials {
  email: string
  password: string
}

/** The running panel's URL. */
export const baseUrl = (): string => inject('ui').baseUrl

/** The fake node agent's URL (test/ui/fake-agent.ts): give it to every node a test creates. */
export const agentUrl = (): string => inject('ui').agentUrl

/** The bootstrap admin's credentials (the first sign-in with them creates the admin). */
export const adminCredentials = (): Credentials => inject('ui').admin

/** Runs the minute cron's tasks now (wrangler dev's `/__scheduled`); the jobs they queue run soon after. */
export async function runMinuteCron(): Promise<void> {
  const response = await fetch(`${baseUrl()}/__scheduled?cron=${encodeURIComponent('* * * * *')}`)
  if (!response.ok) throw new Error(`/__scheduled answered ${response.status}: ${await response.text()}`)
}

/** Signs in through `auth.login`; resolves with the session cookie's value. */
export async function signIn(credentials: Credentials): Promise<string> {
  const response = await fetch(`${baseUrl()}/api/rpc/auth.login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: baseUrl() },
    body: JSON.stringify(credentials),
  })
  if (!response.ok)
    throw new Error(`auth.login as ${credentials.email}: ${response.status} ${await response.text()}`)
  const cookie = response.headers.getSetCookie().find((line) => line.startsWith(`${SESSION_COOKIE}=`))
  const value = cookie?.split(';')[0]?.slice(SESSION_COOKIE.length + 1)
  if (!value) throw new Error('auth.login set no session cookie')
  return value
}

/** The typed client signed in as `credentials` (the admin when omitted): the cookie and the panel's Origin. */
export async function clientAs(credentials: Credentials = adminCredentials()): Promise<Client> {
  const session = await signIn(credentials)
  return createClient({
    baseUrl: baseUrl(),
    headers: { cookie: `${SESSION_COOKIE}=${session}`, origin: baseUrl() },
  })
}

/** Creates a user with `role` (a fresh email each call) through the admin; resolves with its credentials. */
export async function createUser(role: 'operator' | 'admin'): Promise<Credentials> {
  const credentials = {
    email: `${role}-${randomUUID().slice(0, 8)}@ui.test`,
    password: 'ui-user-password-123',
  }
  const admin = await clientAs()
  await admin.users.create({ ...credentials, role })
  return credentials
}
