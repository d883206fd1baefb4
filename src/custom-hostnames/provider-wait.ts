import { db } from '../db/client'
import { customHostnames } from '../db/schema/custom-hostnames'
import type { WriterBudget, WriterFailure } from '../dns-write/name-writer'
import type { Env } from '../env'
import { QUEUE_MAX_ATTEMPTS } from '../jobs/failed-jobs'
import type { JobOutcome } from '../jobs/outcome'
import { type CustomHostnameWriteMessage, current } from './jobs'
import { rateLimitWait } from './remedies'
import type { CustomHostnameRecord } from './rows'

/**
 * The longest a waiting job sleeps before it looks again: it touches its row meanwhile, so the sweep (which
 * re-queues rows untouched for two hours) never takes a long wait for a lost chain.
 */
const MAX_WAIT_SECONDS = 30 * 60

function pacerOf(env: Env, budget: WriterBudget) {
  return env.PROVIDER_PACER.getByName(`account:${budget.accountId}`)
}

/**
 * Asks the account's pacer for the write's turn: null when it may make its calls now (a read of the name and a
 * create per record), else when it comes back. The turn is kept by row and generation, so a redelivered job gets
 * the same moment.
 */
export async function providerTurn(
  env: Env,
  budget: WriterBudget,
  row: CustomHostnameRecord,
  now = Date.now(),
): Promise<Date | null> {
  const cost = 1 + row.records.length
  const at = await pacerOf(env, budget).turn(
    `${row.id}:${row.generation}`,
    cost,
    budget.limit,
    budget.windowMs,
    now,
  )
  return at > now ? new Date(at) : null
}

/** Spends one call of the account's pace when one is free now: a read that can also be skipped asks this. */
export function providerCallFree(env: Env, budget: WriterBudget, now = Date.now()): Promise<boolean> {
  return pacerOf(env, budget).spendNow(1, budget.limit, budget.windowMs, now)
}

/** The provider refused with its rate limit: every write of the account waits until the Retry-After has passed. */
export async function providerRefused(
  env: Env,
  budget: WriterBudget,
  refusal: WriterFailure,
  now = Date.now(),
): Promise<Date> {
  const until = now + (refusal.retryAfterSeconds ?? budget.defaultWaitSeconds) * 1000
  await pacerOf(env, budget).block(until)
  return new Date(until)
}

/**
 * The row stays pending, its tries untouched, saying it waits for the provider's rate limit and until when; the
 * job comes back then. A message close to the Queue's last delivery hands the wait to a fresh one.
 */
export async function waitForProvider(
  env: Env,
  row: CustomHostnameRecord,
  message: CustomHostnameWriteMessage,
  attempts: number,
  until: Date,
  refusal: WriterFailure | null,
): Promise<JobOutcome> {
  const shown = rateLimitWait(row.zoneName, until, refusal)
  await db(env.DB)
    .update(customHostnames)
    .set({ failureRemedy: shown.remedy, failureDetail: shown.detail, updatedAt: new Date() })
    .where(current(row))
  const delaySeconds = Math.min(
    MAX_WAIT_SECONDS,
    Math.max(1, Math.ceil((until.getTime() - Date.now()) / 1000)),
  )
  if (attempts < QUEUE_MAX_ATTEMPTS - 1) return { kind: 'retry', delaySeconds }
  await env.JOBS.sendBatch([{ body: message, delaySeconds }])
  return { kind: 'done' }
}
