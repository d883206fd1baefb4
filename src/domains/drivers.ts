import { eq, isNotNull } from 'drizzle-orm'
import type { Db } from '../db/client'
import { accounts } from '../db/schema/accounts'
import { nameservers } from '../db/schema/dns-servers'
import { type DomainDriver, ISSUERS } from '../db/schema/domains'
import { isDnsProvider } from '../dns-accounts/providers'
import { getAccount } from '../dns-accounts/rows'
import { openProvider } from '../dns-write/open'
import type { Env } from '../env'
import { DNS_PROVIDER_IDS, DNS_PROVIDER_LABELS, DnsProviderError } from '../outside/dns-providers'
import { invalid } from '../rpc/errors'

type Driver = { id: DomainDriver; label: string; supportsProxy: boolean }

/** manual, then each provider some DNS account is configured for, then selfhosted when a nameserver fleet exists. */
export async function listDrivers(db: Db) {
  const [dnsAccounts, boxes] = await db.batch([
    db.select({ provider: accounts.provider }).from(accounts).where(eq(accounts.kind, 'dns')),
    db
      .select({ id: nameservers.nodeId })
      .from(nameservers)
      .where(isNotNull(nameservers.powerDnsApiUrl))
      .limit(1),
  ])
  const configured = new Set(dnsAccounts.map((a) => a.provider))
  const drivers: Driver[] = [
    { id: 'manual', label: 'Manual: you create the DNS records', supportsProxy: false },
    ...DNS_PROVIDER_IDS.filter((id) => configured.has(id)).map((id) => ({
      id,
      label: DNS_PROVIDER_LABELS[id],
      supportsProxy: id === 'provider_a',
    })),
    ...(boxes.length
      ? [{ id: 'selfhosted' as const, label: 'Self-hosted nameservers (PowerDNS)', supportsProxy: false }]
      : []),
  ]
  return { drivers, issuers: [...ISSUERS] }
}

async function testAccount(db: Db, env: Env, accountId: string) {
  const opened = await openProvider(db, env, accountId)
  if (typeof opened === 'string') return { ok: false, detail: opened }
  try {
    return { ok: true, detail: `${opened.label}: ${await opened.driver.verify()}` }
  } catch (error) {
    if (!(error instanceof DnsProviderError)) throw error
    return { ok: false, detail: `${opened.label}: ${error.message}` }
  }
}

/**
 * `{accountId}` verifies that DNS account's stored token with its provider; `{driver}`: manual is always ok,
 * selfhosted is ok when a nameserver box with PowerDNS is enrolled, a provider id tests every account of it.
 */
export async function testCredentials(
  db: Db,
  env: Env,
  input: { accountId: string } | { driver: DomainDriver },
) {
  if ('accountId' in input) {
    const account = await getAccount(db, input.accountId)
    if (account.kind !== 'dns' || !isDnsProvider(account.provider))
      throw invalid('accountId', `the account is a ${account.kind} account, not a DNS provider account`)
    return testAccount(db, env, account.id)
  }
  if (input.driver === 'manual') return { ok: true, detail: 'manual writes no DNS record: nothing to test' }
  if (input.driver === 'selfhosted') {
    const { drivers } = await listDrivers(db)
    const ok = drivers.some((d) => d.id === 'selfhosted')
    return {
      ok,
      detail: ok
        ? 'a nameserver box with PowerDNS is enrolled'
        : 'no nameserver box with PowerDNS is enrolled',
    }
  }
  const held = await db.select({ id: accounts.id }).from(accounts).where(eq(accounts.provider, input.driver))
  if (held.length === 0)
    return { ok: false, detail: `no ${DNS_PROVIDER_LABELS[input.driver]} account is configured` }
  const results = await Promise.all(held.map((a) => testAccount(db, env, a.id)))
  return { ok: results.every((r) => r.ok), detail: results.map((r) => r.detail).join('; ') }
}
