import { type DnsLookupType, DohError, dohLookup } from '../outside/doh'
import type { Verdict } from './schema'

const NOERROR = 0
const SERVFAIL = 2
const NXDOMAIN = 3

/**
 * Whether the validating resolver's SERVFAIL for `name`/`type` is DNSSEC's: the same query with CD (checking
 * disabled) gets an answer (NOERROR or NXDOMAIN), so the records are there and only their signatures fail. A
 * resolver that does not answer the second query leaves it undecided (false).
 */
export async function failsOnlyValidation(
  resolverUrl: string,
  name: string,
  type: DnsLookupType,
): Promise<boolean> {
  try {
    const unchecked = await dohLookup(resolverUrl, name, type, undefined, { checkingDisabled: true })
    return unchecked.status === NOERROR || unchecked.status === NXDOMAIN
  } catch (error) {
    if (error instanceof DohError) return false
    throw error
  }
}

/**
 * One `dnssec-invalid` verdict when `hostname`'s zone (or a zone above it) is signed with keys its parent's DS
 * does not vouch for: the resolver answers SERVFAIL where an unvalidated lookup answers. A SERVFAIL both ways,
 * any other answer, or no answer at all is not DNSSEC's doing, and the rest of the diagnosis reports it.
 */
export async function dnssecVerdicts(resolverUrl: string, hostname: string): Promise<Verdict[]> {
  let checked: Awaited<ReturnType<typeof dohLookup>>
  try {
    checked = await dohLookup(resolverUrl, hostname, 'A')
  } catch (error) {
    if (error instanceof DohError) return []
    throw error
  }
  if (checked.status !== SERVFAIL || !(await failsOnlyValidation(resolverUrl, hostname, 'A'))) return []
  return [
    {
      kind: 'dnssec-invalid',
      type: null,
      name: hostname,
      expected: null,
      observed: [],
      fixable: false,
      detail: `DNSSEC validation fails for ${hostname}: a validating resolver answers SERVFAIL, while the same lookup without validation answers. The zone's signatures do not match the DS record its parent publishes (set at the registrar). Usually the DS at the registrar is for an old or another key: replace it with the DS of the zone's current key, or remove the DS to turn DNSSEC off.`,
    },
  ]
}
