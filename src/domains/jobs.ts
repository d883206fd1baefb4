import { db } from '../db/client'
import { domains } from '../db/schema/domains'
import type { Env } from '../env'
import type { JobOutcome } from '../jobs/outcome'
import type { DomainStepMessage } from './chain'
import { detachJob } from './detach-job'
import { dnsVerify, dnsWrite, driverCheck } from './dns-steps'
import { certificate, renew, routeSetup, smoke } from './edge-steps'
import { type DomainRecord, sameGeneration } from './rows'

export type { DomainStepMessage } from './chain'

const STEPS: Partial<Record<DomainRecord['step'], (env: Env, row: DomainRecord) => Promise<JobOutcome>>> = {
  'driver-check': driverCheck,
  'dns-write': dnsWrite,
  'dns-verify': dnsVerify,
  'route-setup': routeSetup,
  certificate,
  'smoke-test': smoke,
  renew,
  detach: detachJob,
}

/** Carries out the domain's current step, one step per job; each step queues the next when it passes. */
export async function domainStepJob(message: DomainStepMessage, env: Env): Promise<JobOutcome> {
  const [row] = await db(env.DB).select().from(domains).where(sameGeneration(message))
  const run = row ? STEPS[row.step] : undefined
  if (!row || !run) return { kind: 'done' }
  return run(env, row)
}
