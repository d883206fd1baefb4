import { env } from 'cloudflare:workers'
import { eq } from 'drizzle-orm'
import { db } from '../../src/db/client'
import { domains } from '../../src/db/schema/domains'
import type { Env } from '../../src/env'
import type { SentJob } from '../dns-servers/run-job'
import { type Caller, ok } from '../helpers/http'
import { runJob } from '../helpers/jobs'

export const workerEnv = env as unknown as Env

export interface DomainRow {
  id: string
  siteId: string
  routeId: string | null
  hostname: string
  driver: string
  dnsState: string
  issuer: string
  certState: string
  certExpiresAt: string | null
  proxied: boolean
  failureRemedy: string | null
  verification: { step: string; state: string; detail: string; at: string }[]
  createdAt: string
  updatedAt: string
  nextStep?: { title: string; detail: string } | null
}

/** The domain as domains.get shows it. */
export const getDomain = (id: string, caller: Caller) => ok<DomainRow>('domains.get', { id }, caller)

/** Where the domain's job chain stands (not part of the API). */
export async function stepOf(id: string): Promise<string | undefined> {
  const [row] = await db(workerEnv.DB).select({ step: domains.step }).from(domains).where(eq(domains.id, id))
  return row?.step
}

/** Moves the start of the domain's current step into the past, as if it had been waiting that long. */
export async function ageStep(id: string, ms: number): Promise<void> {
  await db(workerEnv.DB)
    .update(domains)
    .set({ stepStartedAt: new Date(Date.now() - ms), updatedAt: new Date(Date.now() - ms) })
    .where(eq(domains.id, id))
}

/** Runs the queued jobs one at a time, oldest first (retries go to the back), until `until()` holds or none is left. */
export async function runJobsUntil(
  sent: SentJob[],
  until: () => Promise<boolean>,
  limit = 60,
): Promise<void> {
  for (let i = 0; i < limit; i++) {
    if (await until()) return
    const job = sent.shift()
    if (!job) return
    if ((await runJob(job.body)).retryDelay !== null) sent.push(job)
  }
}

/** [step, state] of each verification entry. */
export const stepsOf = (row: DomainRow) => row.verification.map((v) => [v.step, v.state])
