import { eq } from 'drizzle-orm'
import { failUnless, isGuardFailure } from '../db/batch-guard'
import { type BatchItem, type Db, db } from '../db/client'
import { type DomainStep, domains, type VerificationEntry } from '../db/schema/domains'
import { probes } from '../db/schema/probes'
import { routes } from '../db/schema/routes'
import type { Env } from '../env'
import type { JobOutcome } from '../jobs/outcome'
import { clearOperationalEvent, raiseOperationalEvent } from '../notifications/operational'
import {
  archiveDomainCertProbes,
  certProbeForGreen,
  configureDomainCertProbes,
} from '../probes/domain-cert/probe'
import { configureMonitor } from '../probes/monitor/configure'
import { enqueueReconcile, removeRoute } from '../routes/http-route'
import { domainEventKey, domainFailedEvent } from './operational-event'
import type { DomainRecord } from './rows'
import { sameGeneration, stillGeneration } from './rows'

export interface DomainStepMessage {
  type: 'domain.step'
  id: string
  /** The chain generation the job belongs to; a job of an older attach, renew or detach changes nothing. */
  generation: number
}

/** How each step is named in `verification` and in a failureRemedy. */
export const STEP_LABELS: Partial<Record<DomainStep, string>> = {
  'driver-check': 'driver check',
  'dns-write': 'DNS write',
  'dns-verify': 'DNS verify',
  'route-setup': 'route setup',
  certificate: 'certificate',
  'smoke-test': 'smoke test',
  renew: 'renew',
  detach: 'detach',
}

/** Queues the job that carries out the domain's current step. */
export async function enqueueDomainStep(
  env: Env,
  row: Pick<DomainRecord, 'id' | 'generation'>,
): Promise<void> {
  const message: DomainStepMessage = { type: 'domain.step', id: row.id, generation: row.generation }
  await env.JOBS.sendBatch([{ body: message }])
}

/** A verification entry stamped now. */
export function entry(step: string, state: VerificationEntry['state'], detail: string): VerificationEntry {
  return { step, state, detail, at: new Date().toISOString() }
}

// A step's running or waiting entry is replaced by its next word, so the list keeps one line per step.
function withEntry(list: readonly VerificationEntry[], next: VerificationEntry): VerificationEntry[] {
  const last = list.at(-1)
  const open = last?.step === next.step && (last.state === 'running' || last.state === 'waiting')
  return [...(open ? list.slice(0, -1) : list), next]
}

// Writes only while the row is still the generation the job read; false when another chain took it over.
async function commit(database: Db, writes: BatchItem[], row: DomainRecord): Promise<boolean> {
  try {
    await database.batch([failUnless(database, stillGeneration(row)), ...writes])
    return true
  } catch (error) {
    if (isGuardFailure(error)) return false
    throw error
  }
}

/**
 * The step passed: record it, move to `next` (with `fields`, and `writes` in the same batch) and queue that step.
 * A domain turning green gets its cert-expiry probe in that batch. A row another attach, renew or detach took
 * over meanwhile is left alone.
 */
export async function advance(
  env: Env,
  row: DomainRecord,
  done: VerificationEntry,
  next: DomainStep,
  fields: Partial<DomainRecord> = {},
  writes: BatchItem[] = [],
): Promise<JobOutcome> {
  const database = db(env.DB)
  const now = new Date()
  const probe = next === 'green' ? await certProbeForGreen(database, row, now) : null
  const committed = await commit(
    database,
    [
      ...writes,
      ...(probe ? [database.insert(probes).values(probe)] : []),
      database
        .update(domains)
        .set({
          ...fields,
          step: next,
          attempts: 0,
          stepStartedAt: now,
          verification: withEntry(row.verification, done),
          updatedAt: now,
        })
        .where(eq(domains.id, row.id)),
    ],
    row,
  )
  if (committed && probe) await configureMonitor(env, probe)
  if (committed && next === 'green') await clearOperationalEvent(env, domainEventKey(row.id))
  if (committed && next !== 'green' && next !== 'failed') await enqueueDomainStep(env, row)
  return { kind: 'done' }
}

/** The step is not there yet: say why in its entry and look again after `delaySeconds`. */
export async function waitFor(
  env: Env,
  row: DomainRecord,
  note: VerificationEntry,
  delaySeconds: number,
  fields: Partial<DomainRecord> = {},
): Promise<JobOutcome> {
  const database = db(env.DB)
  await database
    .update(domains)
    .set({
      ...fields,
      attempts: row.attempts + 1,
      verification: withEntry(row.verification, note),
      updatedAt: new Date(),
    })
    .where(sameGeneration(row))
  return { kind: 'retry', delaySeconds }
}

/** The writes that take the domain's route off its node, or none when it has no live route. */
export async function routeRemoval(database: Db, routeId: string | null) {
  if (!routeId) return null
  const [route] = await database.select({ status: routes.status }).from(routes).where(eq(routes.id, routeId))
  if (!route || route.status === 'removed') return null
  return removeRoute(database, routeId)
}

/**
 * The step failed for good: the row turns failed with a remedy naming the step, the actual error and what to do,
 * and its route leaves the node so no half-configured vhost keeps serving; its cert-expiry probe is archived. DNS
 * steps fail `dnsState`, the later ones `certState`. The installation hears of it (`domain.failed`) until the
 * domain turns green or is detached.
 */
export async function fail(
  env: Env,
  row: DomainRecord,
  step: DomainStep,
  error: string,
  todo: string,
  fields: Partial<DomainRecord> = {},
): Promise<JobOutcome> {
  const database = db(env.DB)
  const label = STEP_LABELS[step] ?? step
  const dnsStep = step === 'driver-check' || step === 'dns-write' || step === 'dns-verify'
  const keepsRoute = step === 'renew' || step === 'detach'
  const removal = keepsRoute ? null : await routeRemoval(database, row.routeId)
  const now = new Date()
  const remedy = `The ${label} step failed: ${error}. ${todo}`
  const committed = await commit(
    database,
    [
      ...(removal?.writes ?? []),
      database
        .update(domains)
        .set({
          ...(dnsStep ? { dnsState: 'failed' as const } : { certState: 'failed' as const }),
          ...(keepsRoute ? {} : { routeId: null }),
          ...fields,
          step: 'failed',
          failureRemedy: remedy,
          verification: withEntry(row.verification, entry(step, 'failed', error)),
          attempts: row.attempts + 1,
          updatedAt: now,
        })
        .where(eq(domains.id, row.id)),
      archiveDomainCertProbes(database, row.id, now),
    ],
    row,
  )
  if (committed) await configureDomainCertProbes(env, database, row.id)
  if (committed && removal) await enqueueReconcile(env, removal.nodeId)
  if (committed) await raiseOperationalEvent(env, domainFailedEvent(row, remedy))
  return { kind: 'done' }
}
