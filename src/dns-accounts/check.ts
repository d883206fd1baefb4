import type { AccountTestState } from '../db/schema/accounts'
import { quotableText } from '../outside/counterpart-text'
import { DnsProviderError, type DnsProviderId, type DnsZone, dnsDriver } from '../outside/dns-providers'
import { type AccountProvider, isDnsProvider } from './providers'
import { checkTokenFormat } from './token-format'

export interface AccountCheck {
  state: AccountTestState
  /** The zones the account holds now; null when they could not be listed (or the kind holds none). */
  zones: DnsZone[] | null
  /** The failure proves the cached zones wrong (token refused, zone gone), rather than merely unknown. */
  dropCachedZones: boolean
}

export interface CheckTarget {
  provider: AccountProvider
  zoneId: string | null
  apiBaseUrl: string | null
}

const SHOWN_ZONES = 5

// Zone names are the provider's words too, so they are quoted like any other counterpart text.
function zoneSummary(zones: readonly DnsZone[], token: string): string {
  if (zones.length === 0) return 'the token holds no zones'
  const count = `${zones.length} zone${zones.length === 1 ? '' : 's'}`
  const names = zones.slice(0, SHOWN_ZONES).map((zone) => zone.name)
  const more = zones.length > SHOWN_ZONES ? `, and ${zones.length - SHOWN_ZONES} more` : ''
  const quoted = quotableText(`${names.join(', ')}${more}`, [token])
  return quoted ? `${count}: ${quoted}` : `${count} (names left out: they repeat part of the token)`
}

async function checkDns(provider: DnsProviderId, target: CheckTarget, token: string) {
  const driver = dnsDriver(provider, { token, apiBaseUrl: target.apiBaseUrl })
  const verified = await driver.verify()
  const all = await driver.listZones()
  const zones = target.zoneId ? all.filter((zone) => zone.id === target.zoneId) : all
  if (target.zoneId && zones.length === 0) {
    throw new DnsProviderError(
      provider,
      'not_found',
      `zone ${target.zoneId} is not among the ${all.length} zone(s) this token can see`,
    )
  }
  return { verified, zones }
}

/**
 * Tests an account's credential: a dns account against its provider (verify the token, then list its zones,
 * narrowed to zoneId when set); git and ssl-issuer accounts by the token's format only.
 */
export async function checkAccount(
  target: CheckTarget,
  token: string,
  now = new Date(),
): Promise<AccountCheck> {
  const testedAt = now.toISOString()
  if (!isDnsProvider(target.provider)) {
    const result = checkTokenFormat(target.provider, token)
    return { state: { ...result, retryAfterSeconds: null, testedAt }, zones: null, dropCachedZones: false }
  }
  try {
    const { verified, zones } = await checkDns(target.provider, target, token)
    const detail = `${verified}; ${zoneSummary(zones, token)}`
    return { state: { ok: true, detail, retryAfterSeconds: null, testedAt }, zones, dropCachedZones: false }
  } catch (error) {
    if (!(error instanceof DnsProviderError)) throw error
    return {
      state: {
        ok: false,
        detail: error.message,
        retryAfterSeconds: error.retryAfterSeconds ?? null,
        testedAt,
      },
      zones: null,
      dropCachedZones: error.kind === 'auth' || error.kind === 'not_found',
    }
  }
}
