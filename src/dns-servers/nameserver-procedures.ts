import { z } from '@hono/zod-openapi'
import { eq } from 'drizzle-orm'
import { nameservers, zoneBoxSync } from '../db/schema/dns-servers'
import { nodes } from '../db/schema/fleet'
import { IdInputSchema, RemovedSchema } from '../lib/schemas'
import { openSecret, sealSecret } from '../lib/secrets'
import { installPowerDns, NodeAgentError } from '../outside/node-agent'
import { procedure } from '../rpc/define'
import { AppError, conflict } from '../rpc/errors'
import { enqueueZoneSync } from './boxes'
import { glueCheck } from './delegation'
import { publicLookup } from './lookup'
import { assertNodeNameFree, assertRemovable, checkPowerDns, joinZones, newApiKey } from './nameservers'
import { getNameserverBox, listNameserverBoxes, type NameserverBox, toNameserverRow } from './rows'
import { EnrollNameserverSchema, GlueCheckSchema, NameserverRowSchema } from './schemas'

export const nameserverProcedures = {
  list: procedure({
    kind: 'query',
    permission: 'domains:view',
    summary: 'List nameserver boxes with their NS-health',
    input: z.strictObject({}),
    output: z.array(NameserverRowSchema),
    async handler(_input, ctx) {
      return (await listNameserverBoxes(ctx.db)).map(toNameserverRow)
    },
  }),
  get: procedure({
    kind: 'query',
    permission: 'domains:view',
    summary: 'Get a nameserver box',
    input: IdInputSchema,
    output: NameserverRowSchema,
    errors: ['not_found'],
    async handler(input, ctx) {
      return toNameserverRow(await getNameserverBox(ctx.db, input.id))
    },
  }),
  enroll: procedure({
    kind: 'mutation',
    permission: 'settings:edit',
    audit: 'nameserver.enroll',
    summary: 'Enroll a node with the nameserver role, optionally adopting a PowerDNS that already runs on it',
    input: EnrollNameserverSchema,
    output: NameserverRowSchema,
    errors: ['conflict', 'upstream_failed'],
    async handler(input, ctx) {
      await assertNodeNameFree(ctx.db, input.name)
      const [taken] = await ctx.db
        .select({ id: nameservers.nodeId })
        .from(nameservers)
        .where(eq(nameservers.hostname, input.hostname))
        .limit(1)
      if (taken) throw conflict(`a nameserver with host name ${input.hostname} already exists`)
      if (input.powerDns) await checkPowerDns(input.powerDns, 'powerDns')
      const now = new Date()
      const nodeId = crypto.randomUUID()
      const box: NameserverBox = {
        node: {
          id: nodeId,
          name: input.name,
          roles: ['nameserver'],
          agentUrl: input.agentUrl,
          agentSecretSealed: await sealSecret(ctx.env, input.agentSecret),
          publicIpv4: input.publicIpv4,
          publicIpv6: input.publicIpv6 ?? null,
          dnsTarget: null,
          createdAt: now,
          updatedAt: now,
        },
        nameserver: {
          nodeId,
          hostname: input.hostname,
          powerDnsApiUrl: input.powerDns?.apiUrl ?? null,
          powerDnsApiKeySealed: input.powerDns ? await sealSecret(ctx.env, input.powerDns.apiKey) : null,
          powerDnsServerId: input.powerDns?.serverId ?? null,
          healthCheckedAt: null,
          healthOk: null,
          healthDetail: null,
          createdAt: now,
          updatedAt: now,
        },
      }
      const joined = input.powerDns ? await joinZones(ctx.db, nodeId, now) : { writes: [], jobs: [] }
      await ctx.commit(
        [
          ctx.db.insert(nodes).values(box.node),
          ctx.db.insert(nameservers).values(box.nameserver),
          ...joined.writes,
        ],
        {
          targetId: nodeId,
          detail: { name: input.name, hostname: input.hostname, adoptedPowerDns: Boolean(input.powerDns) },
        },
      )
      await enqueueZoneSync(ctx.env, joined.jobs, false)
      return toNameserverRow(box)
    },
  }),
  installPowerDns: procedure({
    kind: 'mutation',
    permission: 'settings:edit',
    audit: 'nameserver.install-powerdns',
    summary: "Ask the box's node agent to install PowerDNS; the panel keeps its API address and a fresh key",
    input: IdInputSchema,
    output: NameserverRowSchema,
    errors: ['not_found', 'upstream_failed'],
    async handler(input, ctx) {
      const box = await getNameserverBox(ctx.db, input.id)
      const apiKey = newApiKey()
      const agentSecret = await openSecret(ctx.env, box.node.agentSecretSealed)
      const installed = await installPowerDns({ agentUrl: box.node.agentUrl, agentSecret }, apiKey).catch(
        (error: unknown) => {
          if (error instanceof NodeAgentError) throw new AppError('upstream_failed', error.message)
          throw error
        },
      )
      const endpoint = { apiUrl: installed.apiUrl, apiKey, serverId: installed.serverId }
      await checkPowerDns(endpoint, 'installed').catch((error: unknown) => {
        if (error instanceof AppError) {
          throw new AppError(
            'upstream_failed',
            `the agent reported PowerDNS at ${installed.apiUrl}: ${error.detail}`,
          )
        }
        throw error
      })
      const now = new Date()
      box.nameserver = {
        ...box.nameserver,
        powerDnsApiUrl: installed.apiUrl,
        powerDnsApiKeySealed: await sealSecret(ctx.env, apiKey),
        powerDnsServerId: installed.serverId,
        updatedAt: now,
      }
      const joined = await joinZones(ctx.db, box.node.id, now)
      await ctx.commit(
        [
          ctx.db.update(nameservers).set(box.nameserver).where(eq(nameservers.nodeId, box.node.id)),
          ...joined.writes,
        ],
        { targetId: box.node.id, detail: { apiUrl: installed.apiUrl, version: installed.version } },
      )
      await enqueueZoneSync(ctx.env, joined.jobs, false)
      return toNameserverRow(box)
    },
  }),
  verifyGlue: procedure({
    kind: 'mutation',
    permission: 'settings:edit',
    audit: 'nameserver.verify-glue',
    summary:
      "Check that the box's host name resolves to its addresses, and record the result as its NS-health",
    input: IdInputSchema,
    output: GlueCheckSchema,
    errors: ['not_found', 'upstream_failed'],
    async handler(input, ctx) {
      const { node, nameserver } = await getNameserverBox(ctx.db, input.id)
      const [v4, v6] = await Promise.all([
        publicLookup(ctx.env, nameserver.hostname, 'A'),
        publicLookup(ctx.env, nameserver.hostname, 'AAAA'),
      ])
      const addresses = [node.publicIpv4, node.publicIpv6].filter((a): a is string => a !== null)
      const check = glueCheck(nameserver.hostname, addresses, v4, v6)
      const checkedAt = new Date()
      await ctx.commit(
        [
          ctx.db
            .update(nameservers)
            .set({ healthCheckedAt: checkedAt, healthOk: check.ok, healthDetail: check.detail })
            .where(eq(nameservers.nodeId, node.id)),
        ],
        { targetId: node.id, detail: { ok: check.ok } },
      )
      return { ...check, checkedAt: checkedAt.toISOString() }
    },
  }),
  remove: procedure({
    kind: 'mutation',
    permission: 'settings:edit',
    audit: 'nameserver.remove',
    summary: 'Remove a nameserver box from the panel; its PowerDNS and data stay on the machine',
    input: IdInputSchema,
    output: RemovedSchema,
    errors: ['not_found', 'conflict'],
    async handler(input, ctx) {
      const { node, nameserver } = await getNameserverBox(ctx.db, input.id)
      await assertRemovable(ctx.db, node.id)
      await ctx.commit(
        [
          ctx.db.delete(zoneBoxSync).where(eq(zoneBoxSync.nodeId, node.id)),
          ctx.db.delete(nameservers).where(eq(nameservers.nodeId, node.id)),
          ctx.db.delete(nodes).where(eq(nodes.id, node.id)),
        ],
        { targetId: node.id, detail: { name: node.name, hostname: nameserver.hostname } },
      )
      return { removed: true as const }
    },
  }),
}
