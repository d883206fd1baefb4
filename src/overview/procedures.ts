import { z } from '@hono/zod-openapi'
import { and, count, desc, eq, inArray, isNull, notInArray, type SQL, sql } from 'drizzle-orm'
import type { Permission } from '../auth/permissions'
import type { Db } from '../db/client'
import { customHostnames } from '../db/schema/custom-hostnames'
import { domains } from '../db/schema/domains'
import { nodeHealth, nodes, sites } from '../db/schema/fleet'
import { customHostnameStateCounts } from '../db/schema/hostname-counts'
import { failedJobs } from '../db/schema/jobs'
import { probes } from '../db/schema/probes'
import { nodeEdgeVersions } from '../db/schema/routes'
import { procedure } from '../rpc/define'

// The overview's numbers in one round trip: how many of each thing there are, how many wait to get going and which
// of them fail now. Each area is counted only for a caller who may view it; the others are null.

/** How many failing things an area names (the count covers them all). */
export const FAILING_NAMED = 10

const FailingSchema = z.object({
  id: z.string(),
  name: z.string(),
  state: z
    .string()
    .openapi({ description: 'Why it counts as failing: down, failed, removal-manual, unreachable…' }),
  siteId: z.string().nullable().openapi({ description: 'The site a domain or custom hostname belongs to' }),
})

const AreaSchema = z
  .object({
    total: z.number().int(),
    failing: z.number().int(),
    waiting: z.number().int().openapi({
      description:
        'How many are on their way and not failing: domains mid-attach, custom hostnames instructions or pending, probes never checked; 0 in the other areas',
    }),
    named: z
      .array(FailingSchema)
      .openapi({ description: `Up to ${FAILING_NAMED} of the failing, newest change first` }),
  })
  .nullable()

const SummarySchema = z
  .object({
    nodes: AreaSchema.openapi({ description: 'fleet:view; failing: unreachable or refusing their config' }),
    sites: AreaSchema.openapi({ description: 'fleet:view; never failing' }),
    domains: AreaSchema.openapi({ description: 'domains:view; failing: the attach flow ended failed' }),
    customHostnames: AreaSchema.openapi({
      description: 'custom-hostnames:view; failing: failed, or removal-manual (records to remove by hand)',
    }),
    probes: AreaSchema.openapi({ description: 'probes:view; archived probes left out; failing: down' }),
    jobs: AreaSchema.openapi({
      description:
        'settings:view; total: failed jobs not yet succeeded (retrying, dead, sent again); failing: dead (out of attempts)',
    }),
  })
  .openapi('OverviewSummary')

type Failing = z.infer<typeof FailingSchema>
type Area = NonNullable<z.infer<typeof AreaSchema>>

const refusing = sql`(${nodeHealth.checkState} = 'ok' and ${nodeEdgeVersions.state} = 'failed' and ${nodeEdgeVersions.failure} = 'refused')`
const nodeState = sql<
  string | null
>`case when ${nodeHealth.checkState} = 'unreachable' then 'unreachable' when ${refusing} then 'refusing' end`
const FAILING_STATES = ['failed', 'removal-manual'] as const
const WAITING_STATES = ['instructions', 'pending'] as const
const failingHostname = inArray(customHostnames.state, [...FAILING_STATES])
const liveProbe = isNull(probes.archivedAt)
const waitingDomain = notInArray(domains.step, ['green', 'failed'])
const waitingProbe = and(eq(probes.enabled, true), isNull(probes.lastCheckedAt))
const openJob = inArray(failedJobs.state, ['retrying', 'dead', 'retried'])
const deadJob = eq(failedJobs.state, 'dead')

// Named: two counts of the same shape (`state in (?, ?)`) would otherwise come back under one column name.
const matching = (condition: SQL | undefined, name: string) =>
  sql<number>`coalesce(sum(case when ${condition} then 1 else 0 end), 0)`.as(name)

type CustomHostnameState = (typeof customHostnames.state.enumValues)[number]

// Custom hostnames are tallied from their count per state (kept by triggers), not by reading every row.
const counted = customHostnameStateCounts.customHostnames
const countedIn = (states: readonly CustomHostnameState[], name: string) =>
  sql<number>`coalesce(sum(case when ${inArray(customHostnameStateCounts.state, [...states])} then ${counted} else 0 end), 0)`.as(
    name,
  )
const hostnameTally = {
  total: sql<number>`coalesce(sum(${counted}), 0)`,
  failing: countedIn(FAILING_STATES, 'failing'),
  waiting: countedIn(WAITING_STATES, 'waiting'),
}

/** count(*), how many rows match `failing` and how many `waiting` (none when not given), in one row. */
const tally = (failing: SQL, waiting: SQL | undefined = sql`0`) => ({
  total: count(),
  failing: matching(failing, 'failing'),
  waiting: matching(waiting, 'waiting'),
})

function queries(db: Db) {
  return [
    db
      .select(tally(sql`${nodeState} is not null`))
      .from(nodes)
      .leftJoin(nodeHealth, eq(nodeHealth.nodeId, nodes.id))
      .leftJoin(nodeEdgeVersions, eq(nodeEdgeVersions.nodeId, nodes.id)),
    db
      .select({ id: nodes.id, name: nodes.name, state: sql<string>`${nodeState}`, siteId: sql<null>`null` })
      .from(nodes)
      .leftJoin(nodeHealth, eq(nodeHealth.nodeId, nodes.id))
      .leftJoin(nodeEdgeVersions, eq(nodeEdgeVersions.nodeId, nodes.id))
      .where(sql`${nodeState} is not null`)
      .orderBy(desc(nodeHealth.checkedAt))
      .limit(FAILING_NAMED),
    db.select(tally(sql`0`)).from(sites),
    db.select(tally(eq(domains.step, 'failed'), waitingDomain)).from(domains),
    db
      .select({ id: domains.id, name: domains.hostname, state: domains.step, siteId: domains.siteId })
      .from(domains)
      .where(eq(domains.step, 'failed'))
      .orderBy(desc(domains.updatedAt))
      .limit(FAILING_NAMED),
    db.select(hostnameTally).from(customHostnameStateCounts),
    db
      .select({
        id: customHostnames.id,
        name: customHostnames.hostname,
        state: customHostnames.state,
        siteId: customHostnames.siteId,
      })
      .from(customHostnames)
      .where(failingHostname)
      .orderBy(desc(customHostnames.updatedAt))
      .limit(FAILING_NAMED),
    db
      .select(tally(eq(probes.state, 'down'), waitingProbe))
      .from(probes)
      .where(liveProbe),
    db
      .select({ id: probes.id, name: probes.name, state: probes.state, siteId: sql<null>`null` })
      .from(probes)
      .where(and(liveProbe, eq(probes.state, 'down')))
      .orderBy(desc(probes.lastChangedAt))
      .limit(FAILING_NAMED),
    db.select(tally(deadJob)).from(failedJobs).where(openJob),
    db
      .select({
        id: failedJobs.id,
        name: failedJobs.target,
        state: failedJobs.state,
        siteId: sql<null>`null`,
      })
      .from(failedJobs)
      .where(deadJob)
      .orderBy(desc(failedJobs.lastAttemptAt))
      .limit(FAILING_NAMED),
  ] as const
}

type Tally = { total: number; failing: number; waiting: number }

const area = (tallied: Tally[], named: Failing[] = []): Area => ({
  total: Number(tallied[0]?.total ?? 0),
  failing: Number(tallied[0]?.failing ?? 0),
  waiting: Number(tallied[0]?.waiting ?? 0),
  named,
})

export const overviewProcedures = {
  summary: procedure({
    kind: 'query',
    permission: 'authenticated',
    summary:
      'Counts of nodes, sites, domains, custom hostnames, probes and failed jobs, how many wait to get going, and which of them fail now',
    input: z.strictObject({}),
    output: SummarySchema,
    async handler(_input, ctx) {
      const may = (permission: Permission) => ctx.principal.permissions.has(permission)
      const [
        nodeTally,
        nodeNamed,
        siteTally,
        domainTally,
        domainNamed,
        hostTally,
        hostNamed,
        probeTally,
        probeNamed,
        jobTally,
        jobNamed,
      ] = await ctx.db.batch(queries(ctx.db))
      return {
        nodes: may('fleet:view') ? area(nodeTally, nodeNamed) : null,
        sites: may('fleet:view') ? area(siteTally) : null,
        domains: may('domains:view') ? area(domainTally, domainNamed) : null,
        customHostnames: may('custom-hostnames:view') ? area(hostTally, hostNamed) : null,
        probes: may('probes:view') ? area(probeTally, probeNamed) : null,
        jobs: may('settings:view') ? area(jobTally, jobNamed) : null,
      }
    },
  }),
}
