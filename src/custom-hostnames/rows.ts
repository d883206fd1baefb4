import { and, eq, type SQL, sql } from 'drizzle-orm'
import { type AttemptRow, attemptAnswer } from '../agent-callbacks/attempts'
import { renewalWindowAnswer } from '../agent-callbacks/renewal-windows'
import type { Db } from '../db/client'
import { certificateAttempts, certificateObservations, customHostnames } from '../db/schema/custom-hostnames'
import { instances, sites } from '../db/schema/fleet'
import { afterCursor, contains, newestFirst, orderTerms, rowsOfPageAndOne } from '../lib/paging'
import { conflict, notFound } from '../rpc/errors'
import { metadataField } from './metadata'
import { remedyFor } from './remedies'
import type { ListRow } from './schemas'

export type CustomHostnameRecord = typeof customHostnames.$inferSelect
type Observation = typeof certificateObservations.$inferSelect
type WithObservation = {
  row: CustomHostnameRecord
  observation: Observation | null
  attempt: AttemptRow | null
}

// Only what the node serving the site reported for this very row counts.
function withObservation(db: Db) {
  return db
    .select({ row: customHostnames, observation: certificateObservations, attempt: certificateAttempts })
    .from(customHostnames)
    .leftJoin(sites, eq(sites.id, customHostnames.siteId))
    .leftJoin(instances, eq(instances.id, sites.instanceId))
    .leftJoin(
      certificateObservations,
      and(
        eq(certificateObservations.ownerId, customHostnames.id),
        eq(certificateObservations.nodeId, instances.nodeId),
      ),
    )
    .leftJoin(
      certificateAttempts,
      and(
        eq(certificateAttempts.ownerId, customHostnames.id),
        eq(certificateAttempts.nodeId, instances.nodeId),
      ),
    )
}

/** The site's row for a hostname with its certificate observation; 404 when the site holds none. */
export async function getCustomHostname(db: Db, siteId: string, hostname: string): Promise<WithObservation> {
  const [found] = await withObservation(db).where(
    and(eq(customHostnames.siteId, siteId), eq(customHostnames.hostname, hostname)),
  )
  if (!found) throw notFound(`custom hostname ${hostname} on site ${siteId}`)
  return found
}

/**
 * A page of a site's rows, newest first, each with the status fields: `limit + 1` rows (or every row) after the row `cursor`,
 * only hostnames containing `search` when given.
 */
export async function listCustomHostnames(
  db: Db,
  filter: {
    siteId: string
    search?: string | undefined
    limit?: number | undefined
    cursor?: string | undefined
  },
  operator: boolean,
): Promise<ListRow[]> {
  const scope = and(
    eq(customHostnames.siteId, filter.siteId),
    filter.search ? contains(customHostnames.hostname, filter.search) : undefined,
  )
  const order = newestFirst(customHostnames, customHostnames.createdAt)
  const list = { table: customHostnames, id: customHostnames.id, order, scope }
  const rows = await withObservation(db)
    .where(and(scope, await afterCursor(db, list, filter.cursor)))
    .orderBy(...orderTerms(order))
    .limit(rowsOfPageAndOne(filter.limit))
  return rows.map(({ row, observation, attempt }) => ({
    id: row.id,
    hostname: row.hostname,
    ...toStatus(row, observation, attempt, operator),
  }))
}

/**
 * The status answer of a row: state, plan, the advisory DNS check and what nodes reported of its certificate
 * (the one served with the CA's renewal window, and the newest issuance attempt's error in the CA's words).
 * `operator`: the caller may read the counterpart's words behind a failure (never a site token).
 */
export function toStatus(
  row: CustomHostnameRecord,
  observation: Observation | null,
  attempt: AttemptRow | null,
  operator: boolean,
) {
  const remedy = remedyFor(row, operator)
  // A register that came during the removal shows the state it registers again in.
  const state = row.state === 'removing' && row.afterRemoval ? row.afterRemoval : row.state
  return {
    state,
    tier: row.tier,
    records: row.records,
    dns: { resolves: row.dnsResolves, checkedAt: (row.dnsCheckedAt ?? row.createdAt).toISOString() },
    cert: {
      ...(observation
        ? {
            issued: true,
            notAfter: observation.notAfter.toISOString(),
            observedAt: observation.observedAt.toISOString(),
            ...renewalWindowAnswer(observation),
          }
        : { issued: false }),
      ...attemptAnswer(attempt),
    },
    // The contract shows failureRemedy only on failed and removal-manual rows; a pending write that is retrying
    // shows its last error under its own name, so a client never reads a failure into a state that is not final.
    ...(remedy && (state === 'failed' || state === 'removal-manual') ? { failureRemedy: remedy } : {}),
    ...(remedy && state === 'pending' ? { lastError: remedy } : {}),
    ...metadataField(row.metadata),
  }
}

/** Holds while the row is still at the generation that was read (for `failUnless`). */
export function unchanged(row: CustomHostnameRecord): SQL {
  return sql`exists (select 1 from ${customHostnames} where ${customHostnames.id} = ${row.id} and ${customHostnames.generation} = ${row.generation})`
}

export const changedMeanwhile = (hostname: string) =>
  conflict(`${hostname} was changed by a concurrent call; read its status and retry`)
