import { and, eq, ne } from 'drizzle-orm'
import type { Db } from '../db/client'
import { accounts } from '../db/schema/accounts'
import { conflict, invalid } from '../rpc/errors'
import { type AccountKind, type AccountProvider, PROVIDERS_BY_KIND, takesZoneId } from './providers'

/** Refuses a provider of another kind, and a zoneId where the provider addresses zones by name (or has none). */
export function assertProviderFits(
  kind: AccountKind,
  provider: AccountProvider,
  zoneId: string | null,
): void {
  const allowed = PROVIDERS_BY_KIND[kind]
  if (!allowed.includes(provider)) {
    throw invalid('provider', `${provider} is not a ${kind} provider; use one of ${allowed.join(', ')}`)
  }
  if (zoneId !== null && !takesZoneId(provider)) {
    const why =
      kind === 'dns' ? `${provider} addresses zones by domain name` : `a ${kind} account holds no zones`
    throw invalid('zoneId', `${why}; leave zoneId out`)
  }
}

/**
 * Refuses to point an account's stored token at another API root: whoever may edit settings could otherwise
 * move it to a host they control and read the token off the next test. A new root needs the token again.
 */
export function assertTokenFollowsApiRoot(
  stored: string | null,
  apiBaseUrl: string | null | undefined,
  token: string | undefined,
): void {
  if (apiBaseUrl === undefined || apiBaseUrl === stored || token !== undefined) return
  throw invalid(
    'token',
    'give the token again when changing apiBaseUrl; the stored token is never sent to a new address',
  )
}

/** Account names are unique within a kind, so an operator can tell them apart in a picker. */
export async function assertNameFree(db: Db, kind: AccountKind, name: string, exceptId = ''): Promise<void> {
  const [taken] = await db
    .select({ id: accounts.id })
    .from(accounts)
    .where(and(eq(accounts.kind, kind), eq(accounts.name, name), ne(accounts.id, exceptId)))
    .limit(1)
  if (taken) throw conflict(`a ${kind} account named ${name} already exists`)
}
