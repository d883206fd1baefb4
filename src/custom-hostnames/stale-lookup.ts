import { bareName } from '../lib/dns-name'
import { dohLookup } from '../outside/doh'
import type { PlannedRecord } from './planner'
import { RESOLVES_WAIT_MS } from './resolves'

/**
 * Whether public DNS answers the planned records, for the stale sweep: `unknown` when the resolver did not answer
 * plainly (an error, a timeout, SERVFAIL), since a hostname is removed only on an answer that says its records
 * are not there.
 */
export async function recordsAppeared(
  resolverUrl: string,
  records: PlannedRecord[],
): Promise<'yes' | 'no' | 'unknown'> {
  if (records.length === 0) return 'no'
  try {
    const answers = await Promise.all(
      records.map(async (record) => {
        const found = await dohLookup(resolverUrl, record.name, record.type, RESOLVES_WAIT_MS * 3)
        // 0 NOERROR and 3 NXDOMAIN say what the name holds; anything else says nothing.
        if (found.status !== 0 && found.status !== 3) return 'unknown'
        return found.data.some((data) => bareName(data).toLowerCase() === record.value.toLowerCase())
      }),
    )
    if (answers.includes('unknown')) return 'unknown'
    return answers.every((answer) => answer === true) ? 'yes' : 'no'
  } catch {
    return 'unknown'
  }
}
