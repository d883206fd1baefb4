import type { BatchItem } from '../db/client'
import type { WrittenRecord } from '../db/schema/custom-hostnames'
import type { ZoneSyncJob } from '../dns-servers/sync/queue'

/**
 * What one write or delete attempt came to. `done`: the DNS holds the change (`waiting` names boxes that still
 * have to copy it). `transient`: try again later. `failed`: a person must act; `error` says what happened.
 */
export type DnsStep =
  | { kind: 'done'; written: WrittenRecord[]; waiting: string[]; writes: BatchItem[]; jobs: ZoneSyncJob[] }
  | { kind: 'transient'; error: string; written: WrittenRecord[]; retryAfterSeconds?: number }
  | { kind: 'failed'; error: string; written: WrittenRecord[] }

/** One line per record, as a person would type it into a DNS console. */
export function describeRecords(records: readonly { type: string; name: string; value: string }[]): string {
  return records.map((r) => `${r.type} ${r.name} → ${r.value}`).join('; ')
}
