import { describeRecords } from '../custom-hostnames/outcome'
import { failUnless, isGuardFailure } from '../db/batch-guard'
import { db } from '../db/client'
import type { WrittenRecord } from '../db/schema/custom-hostnames'
import { domains } from '../db/schema/domains'
import { toRecordSets } from '../dns-servers/records/records'
import { enqueueZoneSync } from '../dns-servers/sync/queue'
import { holds } from '../dns-write/in-the-way'
import { openHostedZone, openProvider } from '../dns-write/open'
import type { Env } from '../env'
import type { JobOutcome } from '../jobs/outcome'
import { backoffSeconds } from '../lib/backoff'
import { bareName } from '../lib/dns-name'
import { DohError, dohLookup } from '../outside/doh'
import { advance, entry, fail, waitFor } from './chain'
import { writeProviderRecords } from './dns-writers'
import { deleteHostedRecords, writeHostedRecords } from './hosted-records'
import { deleteConnectedRecords } from './provider-deletes'
import { type DomainRecord, sameGeneration, stillGeneration } from './rows'

/** Attempts of a step that meets passing errors (an outage, a rate limit) before it fails: about 8 minutes. */
export const MAX_STEP_ATTEMPTS = 5
/** How long DNS verify waits for a record the customer creates by hand (manual). */
export const MANUAL_VERIFY_WINDOW_MS = 24 * 60 * 60 * 1000
/** How long DNS verify waits for a record the panel wrote to show. */
export const WRITTEN_VERIFY_WINDOW_MS = 30 * 60 * 1000
// DNS verify looks again at 30 s doubling, never more than 15 minutes apart.
const MAX_VERIFY_DELAY_SECONDS = 15 * 60

const createThem = (row: DomainRecord) =>
  `Create these records at the hostname's DNS: ${describeRecords(row.records)}; then call domains.attach again.`

// A passing error retries with backoff until the step has used its attempts.
function transient(env: Env, row: DomainRecord, error: string, todo: string, retryAfter = 0) {
  if (row.attempts + 1 >= MAX_STEP_ATTEMPTS)
    return fail(env, row, row.step, `${error} (after ${row.attempts + 1} attempts)`, todo)
  return waitFor(
    env,
    row,
    entry(row.step, 'waiting', `${error}; trying again`),
    Math.max(backoffSeconds(row.attempts + 1), retryAfter),
  )
}

/** Driver check: the zone or DNS account the domain was attached with can still take the records. */
export async function driverCheck(env: Env, row: DomainRecord): Promise<JobOutcome> {
  const database = db(env.DB)
  if (row.driver === 'manual')
    return advance(
      env,
      row,
      entry('driver-check', 'passed', 'manual: the panel writes no DNS record'),
      'dns-write',
    )
  if (!row.writerId)
    return fail(env, row, 'driver-check', 'the domain has no DNS writer', 'Detach it and attach again.')
  if (row.driver === 'selfhosted') {
    const opened = await openHostedZone(database, env, row.writerId)
    if (typeof opened === 'string') return fail(env, row, 'driver-check', opened, createThem(row))
    const names = opened.boxes.map((box) => box.hostname).join(', ')
    return advance(
      env,
      row,
      entry('driver-check', 'passed', `self-hosted zone ${opened.zone.name} on ${names}`),
      'dns-write',
    )
  }
  const opened = await openProvider(database, env, row.writerId)
  if (typeof opened === 'string') return fail(env, row, 'driver-check', opened, createThem(row))
  try {
    const detail = await opened.driver.verify()
    return advance(env, row, entry('driver-check', 'passed', `${opened.label}: ${detail}`), 'dns-write')
  } catch (error) {
    if (!(error instanceof Error)) throw error
    return fail(
      env,
      row,
      'driver-check',
      `${opened.label}: ${error.message}`,
      `Fix the account's token (accounts.update), or ${createThem(row)}`,
    )
  }
}

/**
 * Deletes what this domain wrote into its self-hosted zone for an older plan (the node's target moved since), so
 * nothing keeps pointing at the old target; answers the written records the current plan still holds.
 */
async function dropStaleHostedRecords(
  env: Env,
  row: DomainRecord,
): Promise<{ kind: 'done'; written: WrittenRecord[] } | { kind: 'stopped'; outcome: JobOutcome }> {
  const written = row.written.filter((record) => holds(row.records, record))
  const stale = row.written.filter((record) => !holds(row.records, record))
  if (stale.length === 0) return { kind: 'done', written }
  const database = db(env.DB)
  const removed = await deleteHostedRecords(database, env, stale)
  if (removed.kind === 'transient')
    return { kind: 'stopped', outcome: await transient(env, row, removed.error, createThem(row)) }
  if (removed.kind === 'failed')
    return { kind: 'stopped', outcome: await fail(env, row, 'dns-write', removed.error, createThem(row)) }
  try {
    await database.batch([
      failUnless(database, stillGeneration(row)),
      ...removed.writes,
      database.update(domains).set({ written }).where(sameGeneration(row)),
    ])
  } catch (error) {
    // Another attach, renew or detach took the row over: its own job goes on from here.
    if (isGuardFailure(error)) return { kind: 'stopped', outcome: { kind: 'done' } }
    throw error
  }
  await enqueueZoneSync(env, removed.jobs)
  return { kind: 'done', written }
}

/** DNS write: selfhosted through the zone write path, a provider through its driver, manual writes nothing. */
export async function dnsWrite(env: Env, row: DomainRecord): Promise<JobOutcome> {
  const database = db(env.DB)
  if (row.driver === 'manual')
    return advance(
      env,
      row,
      entry('dns-write', 'skipped', `manual: create ${describeRecords(row.records)}`),
      'dns-verify',
    )
  if (!row.writerId) return fail(env, row, 'dns-write', 'the domain has no DNS writer', createThem(row))
  if (row.driver === 'selfhosted') {
    // Records this domain wrote before (an attach run again) are the panel's already.
    if (row.records.every((record) => holds(row.written, record)))
      return advance(
        env,
        row,
        entry('dns-write', 'passed', `already written: ${describeRecords(row.written)}`),
        'dns-verify',
      )
    const kept = await dropStaleHostedRecords(env, row)
    if (kept.kind !== 'done') return kept.outcome
    const step = await writeHostedRecords(database, env, row.writerId, row.records)
    if (step.kind === 'transient') return transient(env, row, step.error, createThem(row))
    if (step.kind === 'failed') return fail(env, row, 'dns-write', step.error, createThem(row))
    const detail = step.written.length
      ? `wrote ${describeRecords(step.written)}`
      : `already present, not written by the panel: ${describeRecords(row.records)}`
    const outcome = await advance(
      env,
      row,
      entry('dns-write', 'passed', detail),
      'dns-verify',
      { written: [...kept.written, ...step.written] },
      step.writes,
    )
    await enqueueZoneSync(env, step.jobs)
    return outcome
  }
  const opened = await openProvider(database, env, row.writerId)
  if (typeof opened === 'string') return fail(env, row, 'dns-write', opened, createThem(row))
  // An attach run again (say, to apply a new proxied flag) replaces what the panel wrote before.
  if (row.written.length > 0) {
    const removed = await deleteConnectedRecords(database, env, row.written)
    if (removed.kind === 'transient') return transient(env, row, removed.error, createThem(row))
    if (removed.kind === 'failed') return fail(env, row, 'dns-write', removed.error, createThem(row))
    await database.update(domains).set({ written: [] }).where(sameGeneration(row))
  }
  const result = await writeProviderRecords(opened, row.writerId, row.records, row.proxied)
  if (result.kind === 'transient')
    return transient(env, row, result.error, createThem(row), result.retryAfterSeconds)
  if (result.kind === 'failed') return fail(env, row, 'dns-write', result.error, createThem(row))
  return advance(env, row, entry('dns-write', 'passed', result.detail), 'dns-verify', {
    written: result.written,
    appliedProxied: row.proxied,
  })
}

type Seen = { ok: true; detail: string } | { ok: false; detail: string }

// Every box of the zone must serve the records: those are the servers resolvers ask.
async function seenOnBoxes(env: Env, row: DomainRecord, zoneId: string): Promise<Seen> {
  const opened = await openHostedZone(db(env.DB), env, zoneId)
  if (typeof opened === 'string') return { ok: false, detail: opened }
  const missing: string[] = []
  for (const box of opened.boxes) {
    try {
      const sets = toRecordSets((await box.client.getZone(opened.zone.name)).rrsets)
      const holds = row.records.every((record) =>
        sets.some(
          (set) =>
            set.name.toLowerCase() === record.name &&
            set.type === record.type &&
            set.values.includes(record.value),
        ),
      )
      if (!holds) missing.push(`${box.hostname} does not serve them yet`)
    } catch (error) {
      missing.push(
        `${box.hostname} did not answer: ${error instanceof Error ? error.message : String(error)}`,
      )
    }
  }
  const names = opened.boxes.map((box) => box.hostname).join(', ')
  return missing.length
    ? { ok: false, detail: missing.join('; ') }
    : { ok: true, detail: `${describeRecords(row.records)} served by ${names}` }
}

// A domain proxied by provider_a resolves to the provider's proxy, never to the node: any address will do.
async function seenByResolver(env: Env, row: DomainRecord): Promise<Seen> {
  const proxied = row.driver === 'provider_a' && row.appliedProxied === true
  const found: string[] = []
  try {
    if (proxied) {
      const answer = await dohLookup(env.DOH_RESOLVER_URL, row.hostname, 'A')
      if (answer.data.length > 0)
        return {
          ok: true,
          detail: `proxied by provider_a: ${row.hostname} resolves to ${answer.data.join(', ')}`,
        }
      return { ok: false, detail: `${row.hostname} does not resolve yet` }
    }
    for (const record of row.records) {
      const answer = await dohLookup(env.DOH_RESOLVER_URL, record.name, record.type)
      const values = answer.data.map((value) => bareName(value).toLowerCase())
      found.push(...values.map((value) => `${record.type} ${value}`))
      if (!values.includes(record.value.toLowerCase()))
        return {
          ok: false,
          detail: `the resolver answers ${found.length ? found.join(', ') : 'nothing'} for ${record.type} ${record.name}, not ${record.value}`,
        }
    }
  } catch (error) {
    if (!(error instanceof DohError)) throw error
    return { ok: false, detail: error.message }
  }
  return { ok: true, detail: `the resolver answers ${found.join(', ')}` }
}

/** DNS verify: the hostname resolves to the node's target; asked of the boxes for a self-hosted zone. */
export async function dnsVerify(env: Env, row: DomainRecord): Promise<JobOutcome> {
  const seen =
    row.driver === 'selfhosted' && row.writerId
      ? await seenOnBoxes(env, row, row.writerId)
      : await seenByResolver(env, row)
  if (seen.ok)
    return advance(env, row, entry('dns-verify', 'passed', seen.detail), 'route-setup', {
      dnsState: 'verified',
    })
  const window = row.driver === 'manual' ? MANUAL_VERIFY_WINDOW_MS : WRITTEN_VERIFY_WINDOW_MS
  const waited = Date.now() - row.stepStartedAt.getTime()
  if (waited >= window)
    return fail(
      env,
      row,
      'dns-verify',
      `not resolving after ${Math.round(waited / 60_000)} minutes: ${seen.detail}`,
      createThem(row),
    )
  return waitFor(
    env,
    row,
    entry('dns-verify', 'waiting', `waiting for ${describeRecords(row.records)}: ${seen.detail}`),
    Math.min(backoffSeconds(row.attempts + 1), MAX_VERIFY_DELAY_SECONDS),
  )
}
