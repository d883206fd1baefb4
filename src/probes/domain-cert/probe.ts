import { and, desc, eq, isNull, sql } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { probes } from '../../db/schema/probes'
import type { Env } from '../../env'
import { CertConfigSchema, NotifyConfigSchema } from '../config'
import { EDGE } from '../locations/schema'
import { configureMonitor } from '../monitor/configure'
import type { ProbeRecord } from '../rows'

/** A new cert-expiry probe of a domain (enabled, default config, due now). */
function domainCertProbe(domain: { id: string; hostname: string }, now: Date): ProbeRecord {
  return {
    id: crypto.randomUUID(),
    name: `certificate of ${domain.hostname}`.slice(0, 100),
    type: 'cert',
    targetKind: 'domain',
    targetId: domain.id,
    target: domain.hostname,
    locations: [EDGE],
    config: CertConfigSchema.parse({}),
    notifyConfig: NotifyConfigSchema.parse({}),
    webhookSecret: null,
    heartbeatTokenHash: null,
    state: 'paused',
    enabled: true,
    consecutiveFailures: 0,
    lastResult: null,
    lastCheckedAt: null,
    lastChangedAt: null,
    nextCheckAt: now,
    archivedAt: null,
    createdAt: now,
    updatedAt: now,
    monitorVersion: null,
  }
}

const certProbesOf = (domainId: string) =>
  and(eq(probes.targetKind, 'domain'), eq(probes.targetId, domainId), eq(probes.type, 'cert'))

/**
 * The cert-expiry probe a domain turning green needs, for the batch that makes it green; null while it has a live
 * one. A domain that had one before (archived when it failed) gets its name, config and notification settings
 * back on the new probe; the archived one keeps its history.
 */
export async function certProbeForGreen(
  db: Db,
  domain: { id: string; hostname: string },
  now: Date,
): Promise<ProbeRecord | null> {
  const rows = await db
    .select()
    .from(probes)
    .where(certProbesOf(domain.id))
    .orderBy(desc(probes.createdAt), desc(sql`rowid`))
  if (rows.some((row) => row.archivedAt === null)) return null
  const probe = domainCertProbe(domain, now)
  const last = rows[0]
  if (!last) return probe
  const { name, config, notifyConfig, webhookSecret } = last
  return { ...probe, name, config, notifyConfig, webhookSecret }
}

/** Archives the domain's cert-expiry probe, for the batch that fails or detaches it (its history and events stay). */
export function archiveDomainCertProbes(db: Db, domainId: string, now: Date) {
  return db
    .update(probes)
    .set({
      archivedAt: now,
      nextCheckAt: null,
      updatedAt: sql`max(${probes.updatedAt} + 1, ${now.getTime()})`,
    })
    .where(and(certProbesOf(domainId), isNull(probes.archivedAt)))
}

/** Tells the monitors of the domain's cert-expiry probes what the catalogue now holds (after the commit). */
export async function configureDomainCertProbes(env: Env, db: Db, domainId: string): Promise<void> {
  const rows = await db.select().from(probes).where(certProbesOf(domainId))
  await Promise.all(rows.map((row) => configureMonitor(env, row)))
}
