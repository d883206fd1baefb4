import type { DnsStep } from '../custom-hostnames/outcome'
import type { Db } from '../db/client'
import type { WrittenRecord } from '../db/schema/custom-hostnames'
import { openProvider } from '../dns-write/open'
import type { Env } from '../env'
import { DnsProviderError } from '../outside/dns-providers'

// Rate limits and outages pass; a refused token, a missing zone or refused data needs a person.
function providerFailure(error: unknown, label: string, written: WrittenRecord[]): DnsStep {
  if (!(error instanceof DnsProviderError)) throw error
  const text = `${label}: ${error.message}`
  if (error.kind === 'rate_limited' || error.kind === 'unavailable')
    return { kind: 'transient', error: text, written, retryAfterSeconds: error.retryAfterSeconds }
  return { kind: 'failed', error: text, written }
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
