import { and, eq } from 'drizzle-orm'
import type { Db } from '../db/client'
import { accountZones } from '../db/schema/accounts'
import type { Env } from '../env'
import { DnsProviderError } from '../outside/dns-providers'
import { providerRateLimit } from '../outside/dns-providers/rate-limits'
import type { NameWriter } from './name-writer'
import { WriterFailure } from './name-writer'
import { openProvider } from './open'

// Rate limits and outages pass, and so does a record that appeared between the read and the create (the next
// attempt reads again); a refused token, a missing zone or refused data needs a person.
function failure(error: unknown, label: string): WriterFailure {
  if (!(error instanceof DnsProviderError)) throw error
  const detail = `${label}: ${error.message}`
  if (error.kind === 'rate_limited') return new WriterFailure('limited', detail, error.retryAfterSeconds)
  if (error.kind === 'unavailable' || error.kind === 'exists')
    return new WriterFailure('unreachable', detail, error.retryAfterSeconds)
  return new WriterFailure('refused', detail)
}

/** The NameWriter of a zone a connected DNS account holds, through the account's provider driver. */
export async function providerNameWriter(
  db: Db,
  env: Env,
  accountId: string,
  zoneName: string,
): Promise<NameWriter> {
  const opened = await openProvider(db, env, accountId)
  if (typeof opened === 'string') throw new WriterFailure('gone', opened)
  const [cached] = await db
    .select({ zoneId: accountZones.zoneId })
    .from(accountZones)
    .where(and(eq(accountZones.accountId, accountId), eq(accountZones.zoneName, zoneName)))
  if (!cached) throw new WriterFailure('gone', `${opened.label} no longer holds the zone ${zoneName}`)
  const zone = { id: cached.zoneId, name: zoneName }
  const { driver, label } = opened
  const { requests, windowSeconds } = providerRateLimit(driver.provider, env.DNS_PROVIDER_RATE_LIMITS)
  return {
    label,
    zoneName,
    canDelete: driver.capabilities.delete,
    budget: {
      accountId,
      limit: requests,
      windowMs: windowSeconds * 1000,
      defaultWaitSeconds: Math.min(windowSeconds, 60),
    },
    async read(name) {
      try {
        const found = await driver.listRecords(zone, name)
        return found.map((r) => ({ type: r.type, value: r.content, recordId: r.recordId, ttl: r.ttl }))
      } catch (error) {
        throw failure(error, label)
      }
    },
    async apply(_name, _present, change, created) {
      try {
        for (const record of change.remove) {
          if (record.recordId)
            await driver.deleteRecord({ zoneId: zone.id, zoneName, recordId: record.recordId })
        }
        for (const record of change.create) {
          const ref = await driver.createRecord(zone, {
            type: record.type,
            name: record.name,
            content: record.value,
            ttl: record.ttl,
          })
          await created(record, ref.recordId)
        }
      } catch (error) {
        throw failure(error, label)
      }
      return { waiting: [], writes: [], jobs: [] }
    },
  }
}
