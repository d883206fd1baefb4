import type { z } from '@hono/zod-openapi'
import { nameservers } from '../../db/schema/dns-servers'
import { nodes } from '../../db/schema/fleet'
import { assertNameFree } from '../../fleet/rows'
import { assertOutboundUrl } from '../../lib/outbound-url'
import { sealSecret } from '../../lib/secrets'
import type { ProcedureContext } from '../../rpc/define'
import { type NameserverBox, toNameserverRow } from '../rows'
import type { EnrollNameserverSchema, NameserverRow } from '../schemas'
import { enqueueZoneSync } from '../sync/queue'
import { NOTHING_SETTLED } from '../sync/state'
import { assertHostnameFree, checkPowerDns, joinZones } from './nameservers'
import { nameserverSet, replaceNameservers } from './ns-set'

export type EnrollInput = z.output<typeof EnrollNameserverSchema>

/**
 * Enrolls a node with the nameserver role and its box in one batch. Adopting a running PowerDNS (after it
 * answers) makes the box serve every zone: it joins each through a job, and every zone's NS set gains it.
 */
export async function enrollNameserver(ctx: ProcedureContext, input: EnrollInput): Promise<NameserverRow> {
  assertOutboundUrl(ctx.env, 'agentUrl', input.agentUrl)
  if (input.powerDns) assertOutboundUrl(ctx.env, 'powerDns.apiUrl', input.powerDns.apiUrl)
  await assertNameFree(ctx.db, input.name)
  await assertHostnameFree(ctx.db, input.hostname)
  if (input.powerDns) await checkPowerDns(input.powerDns, 'powerDns')
  const now = new Date()
  const nodeId = crypto.randomUUID()
  const box: NameserverBox = {
    node: {
      id: nodeId,
      name: input.name,
      roles: ['nameserver'],
      agentUrl: input.agentUrl,
      agentHostname: null,
      agentSecretSealed: await sealSecret(ctx.env, input.agentSecret),
      publicIpv4: input.publicIpv4,
      publicIpv6: input.publicIpv6 ?? null,
      dnsTarget: null,
      checkAllowCidrs: [],
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
  const nsSet = input.powerDns
    ? await replaceNameservers(ctx.db, ctx.env, [...(await nameserverSet(ctx.db)), input.hostname], null, now)
    : NOTHING_SETTLED
  await ctx.commit(
    [
      ctx.db.insert(nodes).values(box.node),
      ctx.db.insert(nameservers).values(box.nameserver),
      ...joined.writes,
      ...nsSet.writes,
    ],
    {
      targetId: nodeId,
      detail: {
        name: input.name,
        hostname: input.hostname,
        adoptedPowerDns: Boolean(input.powerDns),
        nsBehind: nsSet.behind,
      },
    },
  )
  await enqueueZoneSync(ctx.env, [...joined.jobs, ...nsSet.jobs])
  return toNameserverRow(box)
}
