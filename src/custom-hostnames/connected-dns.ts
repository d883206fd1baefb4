import { and, eq } from 'drizzle-orm'
import type { Db } from '../db/client'
import { accountZones } from '../db/schema/accounts'
import type { WrittenRecord } from '../db/schema/custom-hostnames'
import { openProvider } from '../dns-write/open'
import type { Env } from '../env'
import { DnsProviderError } from '../outside/dns-providers'
import type { DnsStep } from './outcome'
import type { PlannedRecord } from './planner'

// Rate limits and outages pass; a refused token, a missing zone or refused data needs a person.
function providerFailure(error: unknown, label: string, written: WrittenRecord[]): DnsStep {
  if (!(error instanceof DnsProviderError)) throw error
  const text = `${label}: ${error.message}`
  if (error.kind === 'rate_limited' || error.kind === 'unavailable')
    return { kind: 'transient', error: text, written, retryAfterSeconds: error.retryAfterSeconds }
  return { kind: 'failed', error: text, written }
}

/** Creates the planned records through the account's provider, one by one, remembering each one it made. */
export async function writeConnectedRecords(
  db: Db,
  env: Env,
  accountId: string,
  zoneName: string,
  records: PlannedRecord[],
  alreadyWritten: WrittenRecord[],
): Promise<DnsStep> {
  const opened = await openProvider(db, env, accountId)
  if (typeof opened === 'string') return { kind: 'failed', error: opened, written: alreadyWritten }
  const [cached] = await db
    .select({ zoneId: accountZones.zoneId })
    .from(accountZones)
    .where(and(eq(accountZones.accountId, accountId), eq(accountZones.zoneName, zoneName)))
  if (!cached)
    return {
      kind: 'failed',
      error: `${opened.label} no longer holds the zone ${zoneName}`,
      written: alreadyWritten,
    }
  const zone = { id: cached.zoneId, name: zoneName }
  const written = [...alreadyWritten]
  for (const record of records) {
    if (written.some((w) => w.type === record.type && w.value === record.value)) continue
    try {
      const ref = await opened.driver.createRecord(zone, {
        type: record.type,
        name: record.name,
        content: record.value,
        ttl: record.ttl,
      })
      written.push({
        via: 'connected',
        accountId,
        zoneId: ref.zoneId,
        zoneName,
        recordId: ref.recordId,
        ...record,
      })
    } catch (error) {
      // A create that had landed before (a retried job) leaves a record the panel cannot tell from the customer's.
      if (error instanceof DnsProviderError && error.kind === 'exists') continue
      return providerFailure(error, opened.label, written)
    }
  }
  return { kind: 'done', written, waiting: [], writes: [], jobs: [] }
}

/** Deletes the records the panel created through the provider; a provider without automated delete fails. */
export async function deleteConnectedRecords(db: Db, env: Env, written: WrittenRecord[]): Promise<DnsStep> {
  const first = written[0]
  if (first?.via !== 'connected') return { kind: 'done', written: [], waiting: [], writes: [], jobs: [] }
  const opened = await openProvider(db, env, first.accountId)
  if (typeof opened === 'string') return { kind: 'failed', error: opened, written }
  if (!opened.driver.capabilities.delete)
    return { kind: 'failed', error: `${opened.label} has no automated delete`, written }
  const left = [...written]
  while (left.length > 0) {
    const record = left[0]
    if (record?.via !== 'connected') break
    try {
      await opened.driver.deleteRecord({
        zoneId: record.zoneId,
        zoneName: record.zoneName,
        recordId: record.recordId,
      })
      left.shift()
    } catch (error) {
      return providerFailure(error, opened.label, left)
    }
  }
  return { kind: 'done', written: [], waiting: [], writes: [], jobs: [] }
}
