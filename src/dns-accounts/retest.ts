import type { BatchItem, Db } from '../db/client'
import { type AccountTestState, accounts } from '../db/schema/accounts'
import type { Env } from '../env'
import { openSecret } from '../lib/secrets'
import { asRead, unchangedSince } from './as-read'
import { checkAccount } from './check'
import type { AccountRecord } from './rows'
import { checkedFields, zoneCacheWrites } from './zone-cache'

export interface Retest {
  /** False when the provider asked to wait and was left alone; `state` is then the stored one. */
  tested: boolean
  state: AccountTestState
  /** What records the outcome; none when nothing was tested. */
  writes: BatchItem[]
}

/** When the provider will take a call again, if its last answer (429 or 503 with Retry-After) is still in force. */
function waitingUntil(state: AccountTestState, now: Date): Date | null {
  if (!state.retryAfterSeconds) return null
  const until = new Date(Date.parse(state.testedAt) + state.retryAfterSeconds * 1000)
  return until > now ? until : null
}

/**
 * Tests a stored account again with its stored token (accounts.test and the hourly cron), unless its provider
 * asked to wait. The writes hold only while the account is as read, so an update that committed during the
 * provider calls keeps its own test result and zones.
 */
export async function retestAccount(db: Db, env: Env, account: AccountRecord, now: Date): Promise<Retest> {
  const stored = account.lastTestState
  const until = waitingUntil(stored, now)
  if (until) {
    const detail = `${stored.detail}; not tested again: the provider asked to wait until ${until.toISOString()}`
    return { tested: false, state: { ...stored, detail }, writes: [] }
  }
  const check = await checkAccount(account, await openSecret(env, account.tokenSealed), now)
  return {
    tested: true,
    state: check.state,
    writes: [
      db.update(accounts).set(checkedFields(check, now)).where(asRead(account)),
      ...zoneCacheWrites(db, account.id, check, unchangedSince(db, account)),
    ],
  }
}
