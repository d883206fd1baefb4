import { and, eq, gt, sql } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { statusPageEmailSubscriptions } from '../../db/schema/status-page-subscribers'
import type { Env } from '../../env'
import { randomSecret } from '../../lib/encoding'
import { sha256Hex } from '../../lib/hash'
import { sealSecret } from '../../lib/secrets'
import { AppError } from '../../rpc/errors'

/** How long a confirmation link works; a new subscribe request mails a fresh one. */
export const CONFIRM_LINK_HOURS = 48
const HOUR_MS = 3_600_000
/** Subscribe requests one client may make per hour, over every page. */
export const SUBSCRIBE_PER_CLIENT_PER_HOUR = 20
/** Confirmation mails one address may be sent per day, over every page: nobody can flood a mailbox. */
export const MAILS_PER_ADDRESS_PER_DAY = 3

const SUBSCRIPTION_MAIL_JOB = 'status-page.subscription-mail'

/** Mails the confirmation link (pending) or a note that the address is already subscribed (confirmed). */
export interface SubscriptionMailMessage {
  type: typeof SUBSCRIPTION_MAIL_JOB
  subscriptionId: string
}

const limiter = (env: Env, key: string) => env.RATE_LIMITER.getByName(key)

/** Spends one of the client's subscribe requests, or answers 429 with when the next one fits. */
async function spendClientRequest(env: Env, clientAddress: string | null): Promise<void> {
  const verdict = await limiter(env, `status-subscribe-client:${clientAddress ?? 'unknown'}`).tryAcquire(
    SUBSCRIBE_PER_CLIENT_PER_HOUR,
    HOUR_MS,
  )
  if (!verdict.allowed)
    throw new AppError(
      'rate_limited',
      `too many subscribe requests from this client: ${SUBSCRIBE_PER_CLIENT_PER_HOUR} per hour; retry in ${verdict.retryAfterSeconds} s`,
      { retryAfterSeconds: verdict.retryAfterSeconds },
    )
}

/**
 * Stores the request and queues its mail. Whether the address is new, pending or confirmed, the work is the
 * same (two limiter calls, two tokens sealed, one upsert, one queued job), so neither the answer nor its timing
 * tells them apart. An address over its daily mail budget is answered alike and gets nothing.
 */
export async function subscribe(
  env: Env,
  db: Db,
  page: { id: string },
  email: string,
  clientAddress: string | null,
  origin: string,
): Promise<void> {
  await spendClientRequest(env, clientAddress)
  const address = email.toLowerCase()
  const forAddress = await limiter(env, `status-subscribe-address:${address}`).tryAcquire(
    MAILS_PER_ADDRESS_PER_DAY,
    24 * HOUR_MS,
  )
  if (!forAddress.allowed) return
  const confirm = randomSecret()
  const unsubscribe = randomSecret()
  const now = new Date()
  const t = statusPageEmailSubscriptions
  const pendingOnly = (column: string) =>
    sql.raw(`case when ${t.state.name} = 'pending' then excluded.${column} else null end`)
  const [row] = await db
    .insert(t)
    .values({
      id: crypto.randomUUID(),
      statusPageId: page.id,
      email: address,
      state: 'pending',
      confirmTokenHash: await sha256Hex(confirm),
      confirmTokenSealed: await sealSecret(env, confirm),
      confirmExpiresAt: new Date(now.getTime() + CONFIRM_LINK_HOURS * HOUR_MS),
      unsubscribeTokenHash: await sha256Hex(unsubscribe),
      unsubscribeTokenSealed: await sealSecret(env, unsubscribe),
      origin,
      createdAt: now,
      updatedAt: now,
      confirmedAt: null,
    })
    .onConflictDoUpdate({
      target: [t.statusPageId, t.email],
      // A confirmed address keeps its state and its unsubscribe link; a pending one gets a fresh link.
      set: {
        confirmTokenHash: pendingOnly(t.confirmTokenHash.name),
        confirmTokenSealed: pendingOnly(t.confirmTokenSealed.name),
        confirmExpiresAt: pendingOnly(t.confirmExpiresAt.name),
        origin,
        updatedAt: now,
      },
    })
    .returning({ id: t.id })
  if (!row) throw new Error('the subscription upsert returned no row')
  const message: SubscriptionMailMessage = { type: SUBSCRIPTION_MAIL_JOB, subscriptionId: row.id }
  await env.JOBS.sendBatch([{ body: message }])
}

/** The pending subscription a confirmation token names on this page, while its link still works. */
export async function pendingByToken(db: Db, statusPageId: string, token: string, now: Date) {
  const t = statusPageEmailSubscriptions
  const [row] = await db
    .select({ id: t.id })
    .from(t)
    .where(
      and(
        eq(t.confirmTokenHash, await sha256Hex(token)),
        eq(t.statusPageId, statusPageId),
        eq(t.state, 'pending'),
        gt(t.confirmExpiresAt, now),
      ),
    )
    .limit(1)
  return row
}

/** Confirms the subscription the token names; false when the link is unknown, used or expired. */
export async function confirmSubscription(
  db: Db,
  statusPageId: string,
  token: string,
  now: Date,
): Promise<boolean> {
  const t = statusPageEmailSubscriptions
  const rows = await db
    .update(t)
    .set({
      state: 'confirmed',
      confirmTokenHash: null,
      confirmTokenSealed: null,
      confirmExpiresAt: null,
      confirmedAt: now,
      updatedAt: now,
    })
    .where(
      and(
        eq(t.confirmTokenHash, await sha256Hex(token)),
        eq(t.statusPageId, statusPageId),
        eq(t.state, 'pending'),
        gt(t.confirmExpiresAt, now),
      ),
    )
    .returning({ id: t.id })
  return rows.length === 1
}

/** Whether an unsubscribe token names a subscription of this page (pending or confirmed). */
export async function subscriptionByUnsubscribeToken(db: Db, statusPageId: string, token: string) {
  const t = statusPageEmailSubscriptions
  const [row] = await db
    .select({ id: t.id })
    .from(t)
    .where(and(eq(t.unsubscribeTokenHash, await sha256Hex(token)), eq(t.statusPageId, statusPageId)))
    .limit(1)
  return row
}

/** Forgets the subscription the token names, address and all; answers whether there was one. */
export async function unsubscribe(db: Db, statusPageId: string, token: string): Promise<boolean> {
  const t = statusPageEmailSubscriptions
  const rows = await db
    .delete(t)
    .where(and(eq(t.unsubscribeTokenHash, await sha256Hex(token)), eq(t.statusPageId, statusPageId)))
    .returning({ id: t.id })
  return rows.length === 1
}
