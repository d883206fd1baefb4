import type { BatchItem } from '../db/client'
import type { ZoneSyncJob } from '../dns-servers/sync/queue'

/** A record found at a name: what it holds, and the provider's id for it where the writer has ids. */
export interface PresentRecord {
  type: string
  value: string
  recordId: string | null
  /** Seconds, as the zone keeps it (0: the zone's default), where the read gives it. */
  ttl?: number
}

/** A record the panel wants at the name. */
export interface WantedRecord {
  type: 'CNAME' | 'A' | 'AAAA'
  name: string
  value: string
  ttl: number
}

/** What a change left for the caller's commit: boxes still catching up, sync-row writes and their jobs. */
export interface AppliedChange {
  waiting: string[]
  writes: BatchItem[]
  jobs: ZoneSyncJob[]
}

/** The API limit a writer's calls count against: one DNS account's, at its provider's limit. */
export interface WriterBudget {
  /** The account, which the pace of its calls is kept for. */
  accountId: string
  limit: number
  windowMs: number
  /** How long to wait after a 429 that said nothing of when to come back. */
  defaultWaitSeconds: number
}

/**
 * One place that can write a name: a self-hosted zone's nameserver boxes or a connected DNS account's zone. The
 * panel reads what is at the name before it changes anything there, and changes only what it asks for.
 */
export interface NameWriter {
  /** How an operator knows it: the zone on its boxes, or the provider account. */
  readonly label: string
  readonly zoneName: string
  /** False for a writer that can read but not delete (the records must then go by hand). */
  readonly canDelete: boolean
  /** The API limit its calls count against; null for the panel's own nameserver boxes. */
  readonly budget: WriterBudget | null
  /** Every record at exactly this name. */
  read(name: string): Promise<PresentRecord[]>
  /**
   * Deletes `remove` (records read at the name) and creates `create`, given what `read` found there. `created`
   * runs as each create is known to have landed, with the provider's id where it has one.
   */
  apply(
    name: string,
    present: readonly PresentRecord[],
    change: { remove: readonly PresentRecord[]; create: readonly WantedRecord[] },
    created: (record: WantedRecord, recordId: string | null) => Promise<void>,
  ): Promise<AppliedChange>
}

/**
 * Why a writer could not do what was asked. `unreachable` (an outage) and `limited` (the provider's rate limit,
 * `retryAfterSeconds` saying for how long when it did) pass; `refused` (bad credential, refused data) and `gone`
 * (the zone or account is no longer there) need a person. `detail` holds the counterpart's words, for operators.
 */
export class WriterFailure extends Error {
  constructor(
    readonly kind: 'unreachable' | 'limited' | 'refused' | 'gone',
    readonly detail: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(detail)
    this.name = 'WriterFailure'
  }

  get passing(): boolean {
    return this.kind === 'unreachable' || this.kind === 'limited'
  }
}

/** Values compare as DNS compares names: case-insensitively. */
export function sameValue(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase()
}
