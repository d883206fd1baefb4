import type { Env } from '../env'
import { type DnsLookupType, DohError, type DohResult, dohLookup } from '../outside/doh'
import { AppError } from '../rpc/errors'

/** Looks a name up with the configured DoH resolver; a resolver that fails answers 502, never a verdict. */
export async function publicLookup(env: Env, name: string, type: DnsLookupType): Promise<DohResult> {
  try {
    return await dohLookup(env.DOH_RESOLVER_URL, name, type)
  } catch (error) {
    if (error instanceof DohError) throw new AppError('upstream_failed', error.message)
    throw error
  }
}
