import type { Api } from '../../api'

type CreateInput = Parameters<Api['accounts']['create']>[0]
export type AccountKind = CreateInput['kind']
export type AccountProvider = CreateInput['provider']
export type AccountRow = Awaited<ReturnType<Api['accounts']['list']>>[number]

interface ProviderInfo {
  kind: AccountKind
  label: string
  /** Addresses zones by an opaque id, so the account may be narrowed to one zone (`zoneId`). */
  zoneById: boolean
}

// Typed against the client's provider union: a provider added to the API fails the typecheck until it is named here.
export const PROVIDERS: Record<AccountProvider, ProviderInfo> = {
  provider_a: { kind: 'dns', label: 'Cloudflare', zoneById: true },
  provider_b: { kind: 'dns', label: 'DigitalOcean', zoneById: false },
  provider_c: { kind: 'dns', label: 'Hetzner Cloud', zoneById: true },
  provider_d: { kind: 'dns', label: 'Vultr', zoneById: false },
  provider_e: { kind: 'dns', label: 'Linode', zoneById: true },
  github: { kind: 'git', label: 'GitHub', zoneById: false },
  gitlab: { kind: 'git', label: 'GitLab', zoneById: false },
  gitea: { kind: 'git', label: 'Gitea', zoneById: false },
  letsencrypt: { kind: 'ssl-issuer', label: "Let's Encrypt", zoneById: false },
  pebble: { kind: 'ssl-issuer', label: 'Pebble (test ACME)', zoneById: false },
  zerossl: { kind: 'ssl-issuer', label: 'ZeroSSL', zoneById: false },
}

export const KINDS: readonly { kind: AccountKind; label: string }[] = [
  { kind: 'dns', label: 'DNS provider' },
  { kind: 'git', label: 'Git host' },
  { kind: 'ssl-issuer', label: 'Certificate issuer' },
]

/** The providers an account of `kind` may use, in a stable order. */
export function providersOf(kind: AccountKind): AccountProvider[] {
  return (Object.keys(PROVIDERS) as AccountProvider[]).filter((id) => PROVIDERS[id].kind === kind)
}

/** The kind of an account row: provider ids are disjoint between kinds. */
export function kindOf(row: AccountRow): AccountKind {
  return PROVIDERS[row.provider].kind
}
