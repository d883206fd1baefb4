import { sql } from 'drizzle-orm'
import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { CERT_ERROR_KINDS } from '../../agent-contract/certificate-attempts'
import type { Metadata } from '../../custom-hostnames/metadata'
import type { PlannedRecord } from '../../custom-hostnames/planner'
import type { Diagnosis } from '../../diagnosis/schema'
import { sites } from './fleet'

/**
 * One place per hostname across custom hostnames and domains: each row that takes a hostname inserts its claim in
 * the same batch, so the primary key decides a collision, never a read followed by a write.
 */
export const hostnameClaims = sqliteTable(
  'hostname_claims',
  {
    hostname: text('hostname').primaryKey(),
    kind: text('kind', { enum: ['custom-hostname', 'domain'] }).notNull(),
    siteId: text('site_id')
      .notNull()
      .references(() => sites.id),
    ownerId: text('owner_id').notNull(),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [index('hostname_claims_site_idx').on(t.siteId)],
)

/** What the panel wrote for a custom hostname, so removal deletes exactly that and nothing else. */
export type WrittenRecord =
  | ({ via: 'hosted'; zoneId: string } & PlannedRecord)
  | ({
      via: 'connected'
      accountId: string
      zoneId: string
      zoneName: string
      recordId: string
    } & PlannedRecord)

export const customHostnames = sqliteTable(
  'custom_hostnames',
  {
    id: text('id').primaryKey(),
    siteId: text('site_id')
      .notNull()
      .references(() => sites.id),
    hostname: text('hostname').notNull().unique(),
    tier: text('tier', { enum: ['hosted', 'connected', 'external'] }).notNull(),
    state: text('state', {
      enum: ['pending', 'active', 'instructions', 'failed', 'removal-manual', 'removing'],
    }).notNull(),
    reason: text('reason'),
    zoneName: text('zone_name').notNull(),
    /** The self-hosted zone id or the DNS account id the records go through; null for instructions rows. */
    writerKind: text('writer_kind', { enum: ['hosted', 'connected'] }),
    writerId: text('writer_id'),
    records: text('records', { mode: 'json' }).$type<PlannedRecord[]>().notNull(),
    /** What the app or its customer can act on; shown to every caller of status. */
    failureRemedy: text('failure_remedy'),
    /** The counterpart's own words (provider, nameserver box): shown to operators, never to a site token. */
    failureDetail: text('failure_detail'),
    /**
     * Set by a register that came while the row was being removed: the state (pending or instructions) the row
     * registers again in, at its next generation, once the removal's deletions finish; null otherwise.
     */
    afterRemoval: text('after_removal', { enum: ['pending', 'instructions'] }),
    /** Rises with every register or remove, so a job left over from an earlier one changes nothing. */
    generation: integer('generation').notNull(),
    /** DNS attempts of the current register or remove; the last allowed one turns a passing error final. */
    attempts: integer('attempts').notNull(),
    dnsResolves: integer('dns_resolves', { mode: 'boolean' }).notNull(),
    dnsCheckedAt: integer('dns_checked_at', { mode: 'timestamp_ms' }),
    /** When a lookup first found the planned records resolving (reset with a new plan); makes the name issuable. */
    dnsResolvedAt: integer('dns_resolved_at', { mode: 'timestamp_ms' }),
    /** The app's own data on the hostname (at most 4 KB of JSON), set at register; null when none. */
    metadata: text('metadata', { mode: 'json' }).$type<Metadata>(),
    /**
     * When the stale sweep announced the row's removal (its records never appeared within the site's
     * removeStaleAfterDays); null otherwise. A register again clears it.
     */
    staleNoticeAt: integer('stale_notice_at', { mode: 'timestamp_ms' }),
    /** The diagnosis of the lookup at `dnsCheckedAt`, reused as long as that lookup is; null before the first. */
    dnsDiagnosis: text('dns_diagnosis', { mode: 'json' }).$type<Diagnosis>(),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [
    index('custom_hostnames_site_idx').on(t.siteId, t.createdAt),
    // The overview names the newest failing rows without reading the others.
    index('custom_hostnames_state_idx').on(t.state, t.updatedAt),
    // The stale sweep reads, per opted-in site, only the rows whose records never appeared: the index holds no
    // other row, so the site's active or resolved hostnames cost it nothing. The query repeats this very condition.
    index('custom_hostnames_stale_idx')
      .on(t.siteId, t.staleNoticeAt, t.updatedAt)
      .where(sql`${t.state} in ('instructions', 'pending') and ${t.dnsResolvedAt} is null`),
  ],
)

/**
 * Every DNS record the panel wrote, or is about to write, for a custom hostname. The intent is inserted before the
 * write (while the row is still at the generation that asked for it), so a retry after a lost answer, a remove
 * during the write and a removal long after all find the record; the row cannot be deleted while one is left.
 */
export const customHostnameRecords = sqliteTable(
  'custom_hostname_records',
  {
    id: text('id').primaryKey(),
    ownerId: text('owner_id')
      .notNull()
      .references(() => customHostnames.id),
    via: text('via', { enum: ['hosted', 'connected'] }).notNull(),
    /** The self-hosted zone id or the DNS account id the record went through. */
    writerId: text('writer_id').notNull(),
    zoneName: text('zone_name').notNull(),
    type: text('type', { enum: ['CNAME', 'A', 'AAAA'] }).notNull(),
    name: text('name').notNull(),
    value: text('value').notNull(),
    ttl: integer('ttl').notNull(),
    /** The provider's id of the record, once its create answered (or a later read found it). */
    recordId: text('record_id'),
    /** `intended` until the write is known to have landed. */
    state: text('state', { enum: ['intended', 'written'] }).notNull(),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [index('custom_hostname_records_owner_idx').on(t.ownerId)],
)

/**
 * The site's allow-list of zones the panel may write into on a token's behalf (deny by default), and the app's
 * own ask URL that the node calls before issuing a certificate for one of the site's hostnames.
 */
export const customHostnameSettings = sqliteTable('custom_hostname_settings', {
  siteId: text('site_id')
    .primaryKey()
    .references(() => sites.id, { onDelete: 'cascade' }),
  allowedZones: text('allowed_zones', { mode: 'json' }).$type<string[]>().notNull(),
  askUrl: text('ask_url'),
  /** Rows whose records never appeared are removed this many days after their last register; null: never. */
  removeStaleAfterDays: integer('remove_stale_after_days'),
  updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
})

/**
 * The newest certificate a node reported for a hostname, kept per claim owner (the custom-hostname row or the
 * domain the claim belonged to when the report arrived) and per node, so it dies with the row and never speaks
 * for another registration or another node.
 */
export const certificateObservations = sqliteTable(
  'certificate_observations',
  {
    ownerId: text('owner_id').notNull(),
    nodeId: text('node_id').notNull(),
    hostname: text('hostname').notNull(),
    notAfter: integer('not_after', { mode: 'timestamp_ms' }).notNull(),
    serial: text('serial').notNull(),
    issuer: text('issuer').notNull(),
    /** The agent's time of the observation, never later than `receivedAt`: the newest wins. */
    observedAt: integer('observed_at', { mode: 'timestamp_ms' }).notNull(),
    receivedAt: integer('received_at', { mode: 'timestamp_ms' }).notNull(),
    /**
     * The CA's suggested renewal window for this very serial (ACME ARI, agent 0.5.1), null until the node reports
     * one; an observation of another serial clears it.
     */
    renewalWindowStart: integer('renewal_window_start', { mode: 'timestamp_ms' }),
    renewalWindowEnd: integer('renewal_window_end', { mode: 'timestamp_ms' }),
    renewalExplanationUrl: text('renewal_explanation_url'),
  },
  (t) => [primaryKey({ columns: [t.ownerId, t.nodeId] })],
)

/**
 * The newest issuance outcome Caddy logged for a hostname on a node (agent 0.5.0), kept like the observations:
 * per claim owner and node. A success (`errorKind` null) clears the error; the newest `at` wins.
 */
export const certificateAttempts = sqliteTable(
  'certificate_attempts',
  {
    ownerId: text('owner_id').notNull(),
    nodeId: text('node_id').notNull(),
    hostname: text('hostname').notNull(),
    /** When Caddy logged the outcome, never later than `receivedAt`. */
    at: integer('at', { mode: 'timestamp_ms' }).notNull(),
    errorKind: text('error_kind', { enum: CERT_ERROR_KINDS }),
    problemType: text('problem_type'),
    detail: text('detail'),
    retryAfter: integer('retry_after', { mode: 'timestamp_ms' }),
    nextAttemptAt: integer('next_attempt_at', { mode: 'timestamp_ms' }),
    receivedAt: integer('received_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.ownerId, t.nodeId] })],
)
