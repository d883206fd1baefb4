import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import type { PlannedRecord } from '../../custom-hostnames/planner'
import type { Diagnosis } from '../../diagnosis/schema'
import type { WrittenRecord } from './custom-hostnames'
import { sites } from './fleet'

export const DOMAIN_DRIVERS = [
  'manual',
  'selfhosted',
  'provider_a',
  'provider_b',
  'provider_c',
  'provider_d',
  'provider_e',
] as const
export type DomainDriver = (typeof DOMAIN_DRIVERS)[number]

export const DNS_STATES = ['pending', 'verified', 'failed'] as const
export const CERT_STATES = ['none', 'pending', 'issued', 'renewing', 'failed'] as const
export const ISSUERS = ['pebble', 'letsencrypt'] as const

/** The job chain's position: an attach step, a renew or a detach under way, or where it came to rest. */
export const DOMAIN_STEPS = [
  'driver-check',
  'dns-write',
  'dns-verify',
  'route-setup',
  'certificate',
  'smoke-test',
  'green',
  'failed',
  'renew',
  'detach',
] as const
export type DomainStep = (typeof DOMAIN_STEPS)[number]

/** One step of the flow as `verification` shows it. */
export interface VerificationEntry {
  step: string
  state: 'running' | 'waiting' | 'passed' | 'skipped' | 'failed'
  detail: string
  at: string
}

/**
 * A hostname attached to a site. Its claim in `hostname_claims` (kind `domain`) is inserted in the same batch, so
 * a hostname is held once across domains and custom hostnames. `step`, `generation` and `attempts` drive the job
 * chain: a job for another generation changes nothing.
 */
export const domains = sqliteTable(
  'domains',
  {
    id: text('id').primaryKey(),
    siteId: text('site_id')
      .notNull()
      .references(() => sites.id),
    routeId: text('route_id'),
    hostname: text('hostname').notNull().unique(),
    driver: text('driver', { enum: DOMAIN_DRIVERS }).notNull(),
    /** The DNS account (provider drivers) or the self-hosted zone (selfhosted) the records go through. */
    writerId: text('writer_id'),
    dnsState: text('dns_state', { enum: DNS_STATES }).notNull(),
    issuer: text('issuer', { enum: ISSUERS }).notNull(),
    certState: text('cert_state', { enum: CERT_STATES }).notNull(),
    certExpiresAt: integer('cert_expires_at', { mode: 'timestamp_ms' }),
    certSerial: text('cert_serial'),
    proxied: integer('proxied', { mode: 'boolean' }).notNull(),
    /** The proxied flag the records were last written with (provider_a); null before any write. */
    appliedProxied: integer('applied_proxied', { mode: 'boolean' }),
    failureRemedy: text('failure_remedy'),
    verification: text('verification', { mode: 'json' }).$type<VerificationEntry[]>().notNull(),
    /** The records the hostname needs, planned at attach: what DNS verify looks for and a remedy names. */
    records: text('records', { mode: 'json' }).$type<PlannedRecord[]>().notNull(),
    /** The last diagnosis of its DNS (domains.get reuses it for 30 s, domains.check replaces it); null before one. */
    diagnosis: text('diagnosis', { mode: 'json' }).$type<Diagnosis>(),
    /** What the panel wrote into DNS, so detach deletes exactly that. */
    written: text('written', { mode: 'json' }).$type<WrittenRecord[]>().notNull(),
    step: text('step', { enum: DOMAIN_STEPS }).notNull(),
    generation: integer('generation').notNull(),
    attempts: integer('attempts').notNull(),
    stepStartedAt: integer('step_started_at', { mode: 'timestamp_ms' }).notNull(),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [
    index('domains_site_idx').on(t.siteId, t.createdAt),
    index('domains_step_idx').on(t.step, t.updatedAt),
  ],
)
