import type { DomainDriver } from '../db/schema/domains'
import { isDnsProvider } from '../dns-accounts/providers'
import type { AccountRecord } from '../dns-accounts/rows'
import { invalid } from '../rpc/errors'

/** A zone that could hold the hostname: a self-hosted one, or one a DNS account held at its last zone refresh. */
export interface ZoneHolders {
  hosted: { id: string; name: string }[]
  held: { accountId: string; zoneName: string; provider: string; name: string }[]
}

interface Holder {
  driver: DomainDriver
  writerId: string
  zone: string
  label: string
}

export type DriverChoice = { driver: DomainDriver; writerId: string | null }

function holdersOf({ hosted, held }: ZoneHolders): Holder[] {
  return [
    ...hosted.map((zone) => ({
      driver: 'selfhosted' as const,
      writerId: zone.id,
      zone: zone.name,
      label: `the self-hosted zone ${zone.name}`,
    })),
    ...held.flatMap((zone) =>
      isDnsProvider(zone.provider)
        ? [
            {
              driver: zone.provider,
              writerId: zone.accountId,
              zone: zone.zoneName,
              label: `the ${zone.provider} account ${zone.name}`,
            },
          ]
        : [],
    ),
  ]
}

// The most specific zone wins, as for custom hostnames; everyone holding that zone is a candidate.
function longest(holders: Holder[]): Holder[] {
  const length = Math.max(0, ...holders.map((holder) => holder.zone.length))
  const top = holders.filter((holder) => holder.zone.length === length)
  return top.filter((holder, i) => top.findIndex((other) => other.writerId === holder.writerId) === i)
}

function ambiguous(candidates: Holder[]): Error {
  const drivers = [...new Set(candidates.map((holder) => holder.driver))]
  const hint =
    drivers.length > 1
      ? `choose one with driver (${drivers.join(' or ')})`
      : "make one of them the DNS default of the site's instance or node (accounts.setDefault)"
  return invalid(
    'driver',
    `${candidates.map((holder) => holder.label).join(' and ')} all hold ${candidates[0]?.zone}; the panel does not guess: ${hint}`,
  )
}

/**
 * Which driver writes a domain's records and through what. `manual` writes nothing; `selfhosted` takes the longest
 * self-hosted zone holding the hostname. Otherwise (a provider id, or no driver) the holders of the most specific
 * zone decide: one holder is used; several are 400 unless one is `account`, the DNS account the accounts cascade
 * resolves for the site's instance (then its node). With no holder, that cascade account (its zone may be newer
 * than the zone cache; the DNS write asks the provider), else manual when no driver was given, else 400 saying why.
 */
export function chooseDriver(
  input: { hostname: string; driver?: DomainDriver | undefined },
  zones: ZoneHolders,
  account: AccountRecord | null,
): DriverChoice {
  const { driver, hostname } = input
  if (driver === 'manual') return { driver: 'manual', writerId: null }
  if (driver === 'selfhosted') {
    const [zone] = longest(holdersOf({ hosted: zones.hosted, held: [] }))
    if (!zone)
      throw invalid('driver', `no self-hosted zone holds ${hostname}: create the zone first, or use manual`)
    return { driver: 'selfhosted', writerId: zone.writerId }
  }
  const candidates = longest(holdersOf(zones).filter((holder) => !driver || holder.driver === driver))
  const [only] = candidates
  if (only && candidates.length === 1) return { driver: only.driver, writerId: only.writerId }
  const chosen = candidates.find((holder) => holder.writerId === account?.id)
  if (chosen) return { driver: chosen.driver, writerId: chosen.writerId }
  if (candidates.length > 1) throw ambiguous(candidates)
  if (account && isDnsProvider(account.provider) && (!driver || account.provider === driver))
    return { driver: account.provider, writerId: account.id }
  if (!driver) return { driver: 'manual', writerId: null }
  throw invalid(
    'driver',
    `no ${driver} account holds a zone for ${hostname} (as of its last zone refresh; accounts.test refreshes it) and none is the DNS default of the site's instance or node`,
  )
}
