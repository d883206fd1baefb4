import { z } from '@hono/zod-openapi'
import { and, count, eq, notExists, sql } from 'drizzle-orm'
import { enqueueReplan } from '../custom-hostnames/replan'
import { commitGuarded, failUnless, nextUpdatedAt } from '../db/batch-guard'
import type { Db } from '../db/client'
import { nameservers } from '../db/schema/dns-servers'
import { instances, nodes } from '../db/schema/fleet'
import { enqueueDomainReplan } from '../domains/replan'
import { assertOutboundUrl } from '../lib/outbound-url'
import { pageInput } from '../lib/paging'
import { IdInputSchema, IdSchema, RemovedSchema } from '../lib/schemas'
import { sealSecret } from '../lib/secrets'
import { clearOperationalEvent } from '../notifications/operational'
import { parseAllowCidrs } from '../probes/locations/node-rule'
import { assertNoProbeChecksFrom, noProbeChecksFrom } from '../probes/locations/nodes'
import { procedure } from '../rpc/define'
import { conflict } from '../rpc/errors'
import { agentHostnameUnclaimed, claimedConflict, failedOnClaim } from './agent-hostname-guards'
import { UNKNOWN_HEALTH } from './health'
import { nodeHealthKey } from './health-event'
import {
  assertAgentUrlMatches,
  assertNameFree,
  getNode,
  getNodeRow,
  listNodeRows,
  type NodeRecord,
  toNodeRow,
} from './rows'
import { NodeFieldsSchema, NodeRowSchema } from './schemas'

async function isEnrolledNameserver(db: Db, nodeId: string): Promise<boolean> {
  const [row] = await db
    .select({ nodeId: nameservers.nodeId })
    .from(nameservers)
    .where(eq(nameservers.nodeId, nodeId))
    .limit(1)
  return row !== undefined
}

async function instanceCount(db: Db, nodeId: string): Promise<number> {
  const [row] = await db.select({ n: count() }).from(instances).where(eq(instances.nodeId, nodeId))
  return row?.n ?? 0
}

/**
 * The node as it was read (same updatedAt, which every update advances), and, for a role change, still fit
 * for the role: a nameserver hosts no instance, an enrolled nameserver stays one.
 */
function unchangedSince(db: Db, node: NodeRecord, role: NodeRecord['roles'][number] | undefined) {
  const fit =
    role === 'nameserver'
      ? notExists(db.select({ id: instances.id }).from(instances).where(eq(instances.nodeId, node.id)))
      : role === 'host'
        ? notExists(
            db.select({ id: nameservers.nodeId }).from(nameservers).where(eq(nameservers.nodeId, node.id)),
          )
        : undefined
  return and(eq(nodes.id, node.id), eq(nodes.updatedAt, node.updatedAt), fit)
}

export const nodesProcedures = {
  create: procedure({
    kind: 'mutation',
    permission: 'fleet:manage',
    audit: 'node.create',
    summary: 'Enroll a node; its agent secret is stored encrypted and never returned',
    input: NodeFieldsSchema,
    output: NodeRowSchema,
    errors: ['conflict'],
    async handler(input, ctx) {
      assertOutboundUrl(ctx.env, 'agentUrl', input.agentUrl)
      assertAgentUrlMatches(input.agentUrl, input.agentHostname ?? null)
      await assertNameFree(ctx.db, input.name)
      const now = new Date()
      const node: NodeRecord = {
        id: crypto.randomUUID(),
        name: input.name,
        roles: input.roles ?? ['host'],
        agentUrl: input.agentUrl,
        agentHostname: input.agentHostname ?? null,
        agentSecretSealed: await sealSecret(ctx.env, input.agentSecret),
        publicIpv4: input.publicIpv4 ?? null,
        publicIpv6: input.publicIpv6 ?? null,
        dnsTarget: input.dnsTarget ?? null,
        checkAllowCidrs: parseAllowCidrs(input.checkAllowCidrs ?? []),
        createdAt: now,
        updatedAt: now,
      }
      const guards = node.agentHostname ? [agentHostnameUnclaimed(ctx.db, node.agentHostname)] : []
      try {
        await ctx.commit([ctx.db.insert(nodes).values(node), ...guards], {
          targetId: node.id,
          detail: { name: node.name },
        })
      } catch (error) {
        if (node.agentHostname && failedOnClaim(error))
          throw await claimedConflict(ctx.db, node.agentHostname)
        throw error
      }
      return toNodeRow(node, UNKNOWN_HEALTH)
    },
  }),
  list: procedure({
    kind: 'query',
    trustedOutput: true,
    permission: 'fleet:view',
    summary:
      'List nodes, newest first, each with its agent health; page with limit and cursor (the id of the last node you hold)',
    input: z.strictObject({ ...pageInput }),
    output: z.array(NodeRowSchema),
    handler: (input, ctx) =>
      ctx.replicaCopy(`nodes.list ${JSON.stringify(input)}`, () => listNodeRows(ctx.db, input)),
  }),
  get: procedure({
    kind: 'query',
    permission: 'fleet:view',
    summary: 'Get a node with its agent health',
    input: IdInputSchema,
    output: NodeRowSchema,
    errors: ['not_found'],
    handler: (input, ctx) => getNodeRow(ctx.db, input.id),
  }),
  update: procedure({
    kind: 'mutation',
    permission: 'fleet:manage',
    audit: 'node.update',
    summary: 'Change a node; a new agent secret replaces the stored one',
    input: NodeFieldsSchema.partial().extend({ id: IdSchema }),
    output: NodeRowSchema,
    errors: ['not_found', 'conflict'],
    async handler({ id, agentSecret, ...fields }, ctx) {
      const node = await getNode(ctx.db, id)
      if (fields.name !== undefined) await assertNameFree(ctx.db, fields.name, id)
      if (fields.roles?.[0] === 'nameserver' && (await instanceCount(ctx.db, id)) > 0) {
        throw conflict('a node with instances cannot take the nameserver role')
      }
      if (fields.roles?.[0] === 'host' && (await isEnrolledNameserver(ctx.db, id))) {
        throw conflict(
          'an enrolled nameserver cannot host instances; remove it with dnsServers.nameservers.remove',
        )
      }
      if (fields.agentUrl !== undefined) assertOutboundUrl(ctx.env, 'agentUrl', fields.agentUrl)
      assertAgentUrlMatches(
        fields.agentUrl ?? node.agentUrl,
        fields.agentHostname === undefined ? node.agentHostname : fields.agentHostname,
      )
      const changes: Partial<NodeRecord> = {
        ...Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)),
        ...(fields.checkAllowCidrs ? { checkAllowCidrs: parseAllowCidrs(fields.checkAllowCidrs) } : {}),
        ...(agentSecret ? { agentSecretSealed: await sealSecret(ctx.env, agentSecret) } : {}),
        updatedAt: nextUpdatedAt(node.updatedAt, new Date()),
      }
      const newAgentHostname =
        fields.agentHostname && fields.agentHostname !== node.agentHostname ? fields.agentHostname : null
      await commitGuarded(
        ctx.commit(
          [
            ctx.db
              .update(nodes)
              .set(changes)
              .where(unchangedSince(ctx.db, node, fields.roles?.[0])),
            failUnless(ctx.db, sql`changes() = 1`),
            ...(newAgentHostname ? [agentHostnameUnclaimed(ctx.db, newAgentHostname)] : []),
          ],
          {
            targetId: id,
            detail: { fields: Object.keys(fields), agentSecretChanged: agentSecret !== undefined },
          },
        ),
        async (error) => {
          if (newAgentHostname && failedOnClaim(error)) return claimedConflict(ctx.db, newAgentHostname)
          await getNode(ctx.db, id)
          return conflict(
            `node ${node.name} changed while this update ran (another update, or an instance or nameserver enrollment that the new role forbids); read it again and retry`,
          )
        },
      )
      const moved = (['dnsTarget', 'publicIpv4', 'publicIpv6'] as const).some(
        (field) => fields[field] !== undefined && fields[field] !== node[field],
      )
      // The hostnames and domains on the node point at its target: their plans (and the records the panel wrote) follow.
      if (moved) {
        await enqueueReplan(ctx.env, id)
        await enqueueDomainReplan(ctx.env, id)
      }
      return getNodeRow(ctx.db, id)
    },
  }),
  remove: procedure({
    kind: 'mutation',
    permission: 'fleet:manage',
    audit: 'node.remove',
    summary:
      'Remove a node that has no instances and no probe checking from it (409 naming those probes otherwise)',
    input: IdInputSchema,
    output: RemovedSchema,
    errors: ['not_found', 'conflict'],
    async handler(input, ctx) {
      const node = await getNode(ctx.db, input.id)
      if ((await instanceCount(ctx.db, node.id)) > 0)
        throw conflict('remove the instances on this node first')
      if (await isEnrolledNameserver(ctx.db, node.id)) {
        throw conflict('this node is an enrolled nameserver; remove it with dnsServers.nameservers.remove')
      }
      await assertNoProbeChecksFrom(ctx.db, node)
      await commitGuarded(
        ctx.commit(
          [failUnless(ctx.db, noProbeChecksFrom(node.id)), ctx.db.delete(nodes).where(eq(nodes.id, node.id))],
          { targetId: node.id, detail: { name: node.name } },
        ),
        async () => {
          await assertNoProbeChecksFrom(ctx.db, node)
          return conflict(`node ${node.name} changed while it was being removed; try again`)
        },
      )
      // A removed node's problem ends with it: whoever heard of it hears that.
      await clearOperationalEvent(ctx.env, nodeHealthKey(node.id))
      return { removed: true as const }
    },
  }),
}
