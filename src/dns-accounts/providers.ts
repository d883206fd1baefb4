import { DNS_CAPABILITIES, DNS_PROVIDER_IDS, type DnsProviderId } from '../outside/dns-providers'

export const ACCOUNT_KINDS = ['dns', 'git', 'ssl-issuer'] as const
export type AccountKind = (typeof ACCOUNT_KINDS)[number]

export const GIT_PROVIDERS = ['github', 'gitlab', 'gitea'] as const
export type GitProvider = (typeof GIT_PROVIDERS)[number]

export const SSL_ISSUER_PROVIDERS = ['letsencrypt', 'pebble', 'zerossl'] as const
export type SslIssuerProvider = (typeof SSL_ISSUER_PROVIDERS)[number]

export const ALL_PROVIDERS = [...DNS_PROVIDER_IDS, ...GIT_PROVIDERS, ...SSL_ISSUER_PROVIDERS] as const
export type AccountProvider = (typeof ALL_PROVIDERS)[number]

/** The provider ids each kind of account accepts; the sets are disjoint, so a provider id names its kind. */
export const PROVIDERS_BY_KIND: Record<AccountKind, readonly AccountProvider[]> = {
  dns: DNS_PROVIDER_IDS,
  git: GIT_PROVIDERS,
  'ssl-issuer': SSL_ISSUER_PROVIDERS,
}

export function isDnsProvider(provider: string): provider is DnsProviderId {
  return (DNS_PROVIDER_IDS as readonly string[]).includes(provider)
}

/** Only dns providers that address zones by an opaque id take an account-level zoneId. */
export function takesZoneId(provider: string): boolean {
  return isDnsProvider(provider) && DNS_CAPABILITIES[provider].zoneKey === 'id'
}
