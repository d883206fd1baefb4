import { eq, sql } from 'drizzle-orm'
import { commitGuarded, failUnless, isGuardFailure } from '../db/batch-guard'
import type { BatchItem } from '../db/client'
import { isConstraintError } from '../db/constraint-error'
import { customHostnames, hostnameClaims } from '../db/schema/custom-hostnames'
import { queueReconcile, versionIn } from '../routes/versions'
import type { ProcedureContext } from '../rpc/define'
import { AppError } from '../rpc/errors'
import { capGuards } from './caps'
import { customHostnameIssuable } from './issuable'
import { enqueueCustomHostnameJob } from './jobs'
import { type Metadata, metadataField } from './metadata'
import type { Plan } from './planner'
import { type RegisterReads, routePush } from './register-reads'
import { replanRow, samePlan } from './replan'
import { type NodePush, pushOfLiveRoute } from './route'
import { type CustomHostnameRecord, changedMeanwhile, unchanged } from './rows'

/** `metadata`: absent keeps what a row holds, null clears it. */
type Input = { siteId: string; hostname: string; metadata?: Metadata | null | undefined }
type Registration = {
  id: string
  hostname: string
  tier: Plan['tier']
  state: 'pending' | 'active' | 'instructions'
  records: Plan['records']
  reason?:
    | 'external-zone'
    | 'zone-not-allow-listed'
    | 'ambiguous-zone'
    | 'foreign-records'
    | 'site_has_no_target'
  metadata?: Metadata
}

export const collision = (hostname: string) =>
  new AppError(
    'collision',
    `${hostname} is already attached to a site as a domain or registered to another site; use another hostname`,
  )

function planned(plan: Plan) {
  const instructions = plan.verdict === 'instructions'
  return {
    tier: plan.tier,
    state: instructions ? ('instructions' as const) : ('pending' as const),
    reason: instructions ? plan.reason : null,
    zoneName: plan.zoneName,
    writerKind: plan.writer?.kind ?? null,
    writerId: plan.writer
      ? plan.writer.kind === 'hosted'
        ? plan.writer.zoneId
        : plan.writer.accountId
      : null,
    records: plan.records,
  }
}

function answer(
  row: Pick<CustomHostnameRecord, 'id' | 'hostname' | 'tier' | 'records' | 'reason' | 'metadata'>,
  state: Registration['state'],
): Registration {
  return {
    id: row.id,
    hostname: row.hostname,
    tier: row.tier,
    state,
    records: row.records,
    ...(state === 'instructions' && row.reason ? { reason: row.reason as Registration['reason'] } : {}),
    ...metadataField(row.metadata),
  }
}

/** What a register again writes of the app's metadata: the given one, null to clear, nothing when absent. */
const metadataChange = (metadata: Metadata | null | undefined) => (metadata === undefined ? {} : { metadata })

/** After the commit of `writes`, the push last among them: the reconcile of the version the batch reached. */
async function queuePush(
  ctx: ProcedureContext,
  push: NodePush | null,
  writes: readonly BatchItem[],
  results: readonly unknown[],
) {
  if (push) await queueReconcile(ctx.env, push.nodeId, versionIn(results, writes.length - 1))
}

/**
 * A first register: the claim and the row in one batch, so a concurrent register elsewhere loses with 409, and
 * with the guards that keep the site and its node within their caps.
 */
export async function registerNew(
  ctx: ProcedureContext,
  input: Input,
  plan: Plan,
  reads: RegisterReads,
): Promise<Registration> {
  const now = new Date()
  const fields = planned(plan)
  const row = {
    id: crypto.randomUUID(),
    siteId: input.siteId,
    hostname: input.hostname,
    ...fields,
    failureRemedy: null,
    failureDetail: null,
    generation: 1,
    attempts: 0,
    dnsResolves: false,
    dnsCheckedAt: null,
    dnsResolvedAt: null,
    metadata: input.metadata ?? null,
    staleNoticeAt: null,
    createdAt: now,
    updatedAt: now,
  }
  const push = routePush(ctx.db, reads, input)
  const caps = capGuards(ctx.db, ctx.env, row.siteId)
  const writes: BatchItem[] = [
    ...caps.guards,
    ctx.db.insert(hostnameClaims).values({
      hostname: row.hostname,
      kind: 'custom-hostname',
      siteId: row.siteId,
      ownerId: row.id,
      createdAt: now,
    }),
    ctx.db.insert(customHostnames).values(row),
    ...(push?.writes ?? []),
  ]
  let results: unknown[]
  try {
    results = await ctx.commit(writes, {
      targetId: row.id,
      detail: { hostname: row.hostname, siteId: row.siteId, state: row.state, tier: row.tier },
    })
  } catch (error) {
    const refused = caps.refusal(error)
    if (refused) throw refused
    if (isConstraintError(error, 'UNIQUE')) throw collision(input.hostname)
    throw error
  }
  await queuePush(ctx, push, writes, results)
  if (row.state === 'pending')
    await enqueueCustomHostnameJob(ctx.env, { type: 'custom-hostname.write', id: row.id, generation: 1 })
  return answer(row, row.state)
}

/**
 * A register of a hostname the site already holds: live and pending rows answer as they are; an instructions
 * row takes the current plan (and starts writing once its zone is allow-listed); failed and removal-manual rows
 * start a fresh round; a row being removed registers again once its removal's deletions finish. Each keeps the
 * app's metadata unless the register gives some (null clears it), and a stale sweep's notice ends.
 */
export async function registerAgain(
  ctx: ProcedureContext,
  row: CustomHostnameRecord,
  plan: Plan,
  reads: RegisterReads,
  metadata: Metadata | null | undefined,
): Promise<Registration> {
  const audit = { targetId: row.id, detail: { hostname: row.hostname, siteId: row.siteId, again: true } }
  if (row.state === 'removing') return registerAfterRemoval(ctx, row, plan, reads, metadata)
  const kept = { ...row, ...metadataChange(metadata) }
  // Only what changes is written: a retried register that changes nothing writes nothing but its guard.
  const touched =
    metadata !== undefined || row.staleNoticeAt
      ? [
          ctx.db
            .update(customHostnames)
            .set({ ...metadataChange(metadata), staleNoticeAt: null })
            .where(eq(customHostnames.id, row.id)),
        ]
      : []
  if (row.state === 'active' || row.state === 'pending') {
    // With nothing to point at, a live row keeps the records it has rather than an empty plan. Otherwise it keeps
    // its answer unless its plan moved (a node's new target): then the records follow. Its route comes back if
    // someone removed it (routes.remove).
    const push = routePush(ctx.db, reads, row)
    const moved =
      plan.missingTarget || samePlan(plan.records, row.records)
        ? null
        : replanRow(ctx.db, row, plan.records, new Date())
    const writes = [
      failUnless(ctx.db, unchanged(row)),
      ...touched,
      ...(moved ? [moved.write] : []),
      ...(push?.writes ?? []),
    ]
    const results = await commitGuarded(ctx.commit(writes, audit), () => changedMeanwhile(row.hostname))
    await queuePush(ctx, push, writes, results)
    if (moved?.job) await enqueueCustomHostnameJob(ctx.env, moved.job)
    return moved ? answer({ ...kept, records: plan.records }, 'pending') : answer(kept, row.state)
  }
  const fields = planned(plan)
  // What a lookup saw resolving was the old plan; other records must be seen anew.
  const dnsCheck =
    JSON.stringify(fields.records) === JSON.stringify(row.records)
      ? {}
      : { dnsResolves: false, dnsCheckedAt: null, dnsResolvedAt: null }
  const generation = row.generation + 1
  const now = new Date()
  // A new route, or else a new version of the node routing it when whether its certificate may be issued changed.
  const push =
    routePush(ctx.db, reads, row) ??
    (customHostnameIssuable(row) !== customHostnameIssuable({ ...row, ...fields, ...dnsCheck })
      ? pushOfLiveRoute(ctx.db, reads.live, now)
      : null)
  const writes: BatchItem[] = [
    failUnless(ctx.db, unchanged(row)),
    ctx.db
      .update(customHostnames)
      .set({
        ...fields,
        ...dnsCheck,
        ...metadataChange(metadata),
        staleNoticeAt: null,
        failureRemedy: null,
        failureDetail: null,
        generation,
        attempts: 0,
        updatedAt: now,
      })
      .where(eq(customHostnames.id, row.id)),
    ...(push?.writes ?? []),
  ]
  const results = await commitGuarded(
    ctx.commit(writes, { ...audit, detail: { ...audit.detail, state: fields.state } }),
    () => changedMeanwhile(row.hostname),
  )
  await queuePush(ctx, push, writes, results)
  if (fields.state === 'pending')
    await enqueueCustomHostnameJob(ctx.env, { type: 'custom-hostname.write', id: row.id, generation })
  return answer({ ...kept, ...fields }, fields.state)
}

/**
 * A register of a row whose removal is running: the row keeps its generation, so the remove job at work finishes
 * deleting what the panel wrote, and then (in the batch that would have deleted the row) takes this plan at the
 * next generation (`afterRemoval`). The route comes back at once. Should the removal end first, it is a new row.
 */
async function registerAfterRemoval(
  ctx: ProcedureContext,
  row: CustomHostnameRecord,
  plan: Plan,
  reads: RegisterReads,
  given: Metadata | null | undefined,
): Promise<Registration> {
  // A registration anew: the removed one's metadata does not come back with it.
  const metadata = given ?? null
  const fields = planned(plan)
  const push = routePush(ctx.db, reads, row)
  const writes: BatchItem[] = [
    failUnless(ctx.db, removingAt(row)),
    ctx.db
      .update(customHostnames)
      .set({
        ...fields,
        state: 'removing',
        afterRemoval: fields.state,
        metadata,
        staleNoticeAt: null,
        dnsResolves: false,
        dnsCheckedAt: null,
        dnsResolvedAt: null,
        failureRemedy: null,
        failureDetail: null,
        updatedAt: new Date(),
      })
      .where(eq(customHostnames.id, row.id)),
    ...(push?.writes ?? []),
  ]
  const audit = {
    targetId: row.id,
    detail: { hostname: row.hostname, siteId: row.siteId, again: true, state: fields.state },
  }
  let results: unknown[]
  try {
    results = await ctx.commit(writes, audit)
  } catch (error) {
    if (!isGuardFailure(error)) throw error
    // The removal ended meanwhile: the row went (a new one), or it landed on removal-manual (a fresh round).
    const [now] = await ctx.db.select().from(customHostnames).where(eq(customHostnames.id, row.id))
    if (!now) return registerNew(ctx, { siteId: row.siteId, hostname: row.hostname, metadata }, plan, reads)
    if (now.state === 'removing') throw changedMeanwhile(row.hostname)
    return registerAgain(ctx, now, plan, reads, metadata)
  }
  await queuePush(ctx, push, writes, results)
  return answer({ ...row, ...fields, metadata }, fields.state)
}

const removingAt = (row: CustomHostnameRecord) =>
  sql`exists (select 1 from ${customHostnames} where ${customHostnames.id} = ${row.id}
    and ${customHostnames.generation} = ${row.generation} and ${customHostnames.state} = 'removing')`
