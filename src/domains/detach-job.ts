import { and, eq } from 'drizzle-orm'
import { forgetAttempts } from '../agent-callbacks/attempts'
import { forgetObservations } from '../agent-callbacks/observations'
import { describeRecords } from '../custom-hostnames/outcome'
import { failUnless } from '../db/batch-guard'
import { db } from '../db/client'
import { hostnameClaims } from '../db/schema/custom-hostnames'
import { domains } from '../db/schema/domains'
import { enqueueZoneSync } from '../dns-servers/sync/queue'
import type { Env } from '../env'
import type { JobOutcome } from '../jobs/outcome'
import { backoffSeconds } from '../lib/backoff'
import { clearOperationalEvent } from '../notifications/operational'
import { entry, fail, waitFor } from './chain'
import { MAX_STEP_ATTEMPTS } from './dns-steps'
import { deleteHostedRecords } from './hosted-records'
import { domainEventKey } from './operational-event'
import { deleteConnectedRecords } from './provider-deletes'
import { type DomainRecord, sameGeneration, stillGeneration } from './rows'

/**
 * Detach, after the procedure took the route off the node: deletes the records the panel wrote, then releases
 * the claim and deletes the row (and what nodes reported of its certificate) in one batch.
 */
export async function detachJob(env: Env, row: DomainRecord): Promise<JobOutcome> {
  const database = db(env.DB)
  const step =
    row.written[0]?.via === 'connected'
      ? await deleteConnectedRecords(database, env, row.written)
      : await deleteHostedRecords(database, env, row.written)
  if (step.kind === 'done') {
    await database.batch([
      // Only while the row is still this detach: the claim goes with the row or not at all.
      failUnless(database, stillGeneration(row)),
      ...step.writes,
      database
        .delete(hostnameClaims)
        .where(and(eq(hostnameClaims.hostname, row.hostname), eq(hostnameClaims.ownerId, row.id))),
      forgetObservations(database, row.id),
      forgetAttempts(database, row.id),
      database.delete(domains).where(sameGeneration(row)),
    ])
    await enqueueZoneSync(env, step.jobs)
    await clearOperationalEvent(env, domainEventKey(row.id))
    return { kind: 'done' }
  }
  const todo = `Delete these records by hand: ${describeRecords(step.written)}; then call domains.detach again.`
  if (step.kind === 'transient' && row.attempts + 1 < MAX_STEP_ATTEMPTS)
    return waitFor(
      env,
      row,
      entry('detach', 'waiting', `${step.error}; trying again`),
      backoffSeconds(row.attempts + 1),
      {
        written: step.written,
      },
    )
  return fail(env, row, 'detach', step.error, todo, { written: step.written })
}
