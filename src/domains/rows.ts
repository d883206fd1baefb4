import { eq, type SQL, sql } from 'drizzle-orm'
import type { Db } from '../db/client'
import { domains } from '../db/schema/domains'
import { notFound } from '../rpc/errors'
import type { DomainRow } from './schemas'

export type DomainRecord = typeof domains.$inferSelect

/** The row as the API shows it. */
export function toDomainRow(row: DomainRecord): DomainRow {
  return {
    id: row.id,
    siteId: row.siteId,
    routeId: row.routeId,
    hostname: row.hostname,
    driver: row.driver,
    dnsState: row.dnsState,
    issuer: row.issuer,
    certState: row.certState,
    certExpiresAt: row.certExpiresAt?.toISOString() ?? null,
    proxied: row.proxied,
    failureRemedy: row.failureRemedy,
    verification: row.verification,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  }
}

/** The backups prompt, shown once the domain is green. */
export function nextStepOf(row: DomainRecord): { title: string; detail: string } | null {
  if (row.dnsState !== 'verified' || row.certState !== 'issued') return null
  return {
    title: 'Set up backups',
    detail: `${row.hostname} is live over HTTPS. Schedule backups of the site now, so a bad deploy or a lost node can be undone.`,
  }
}

/** The domain with this id, or 404. */
export async function getDomainRecord(db: Db, id: string): Promise<DomainRecord> {
  const [row] = await db.select().from(domains).where(eq(domains.id, id)).limit(1)
  if (!row) throw notFound(`domain ${id}`)
  return row
}

/** Matches the row only while it is the chain generation that was read (a where clause). */
export function sameGeneration(row: Pick<DomainRecord, 'id' | 'generation'>): SQL {
  return sql`${domains.id} = ${row.id} and ${domains.generation} = ${row.generation}`
}

/** True while the row is still the chain generation that was read (a condition for `failUnless`). */
export function stillGeneration(row: Pick<DomainRecord, 'id' | 'generation'>): SQL {
  return sql`exists (select 1 from ${domains} where ${sameGeneration(row)})`
}

/** What a node offers a hostname to point at: its DNS target, else an address. */
export function targetOf(node: {
  dnsTarget: string | null
  publicIpv4: string | null
  publicIpv6: string | null
}): string | null {
  return node.dnsTarget ?? node.publicIpv4 ?? node.publicIpv6 ?? null
}
