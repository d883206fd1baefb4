import { eq } from 'drizzle-orm'
import { nameservers } from '../../db/schema/dns-servers'
import type { Env } from '../../env'
import { isProduction, outboundUrlProblem } from '../../lib/outbound-url'
import { openSecret, sealSecret } from '../../lib/secrets'
import { installPowerDns, NodeAgentError, type PowerDnsInstalled } from '../../outside/node-agent'
import type { ProcedureContext } from '../../rpc/define'
import { AppError, conflict } from '../../rpc/errors'
import { getNameserverBox, hasPowerDns, type NameserverBox, toNameserverRow } from '../rows'
import type { NameserverRow } from '../schemas'
import { enqueueZoneSync } from '../sync/queue'
import { NOTHING_SETTLED } from '../sync/state'
import { checkPowerDns, joinZones, newApiKey } from './nameservers'
import { nameserverSet, replaceNameservers } from './ns-set'

/** Has the node agent install PowerDNS with `apiKey`; any failure is 502 in the agent's words (never the key). */
async function askAgent(env: Env, { node }: NameserverBox, apiKey: string): Promise<PowerDnsInstalled> {
  // A node enrolled before agent URLs were checked may still hold one the key must not travel to.
  const problem = outboundUrlProblem(node.agentUrl, isProduction(env))
  if (problem) throw conflict(`the node's agentUrl ${problem}; correct it with nodes.update first`)
  const agentSecret = await openSecret(env, node.agentSecretSealed)
  try {
    return await installPowerDns({ agentUrl: node.agentUrl, agentSecret }, apiKey)
  } catch (error) {
    if (error instanceof NodeAgentError) throw new AppError('upstream_failed', error.message)
    throw error
  }
}

/**
 * Checks where the agent says PowerDNS answers before the key goes there: an address the panel may not call
 * (plain http or a private address in production) is the agent's fault, so 502, and nothing is stored.
 */
function assertCallable(env: Env, apiUrl: string): void {
  const problem = outboundUrlProblem(apiUrl, isProduction(env))
  if (!problem) return
  const host = URL.canParse(apiUrl) ? ` (${new URL(apiUrl).host})` : ''
  throw new AppError(
    'upstream_failed',
    `the node agent reported a PowerDNS API URL${host} the panel may not call: it ${problem}`,
  )
}

/**
 * Installs PowerDNS on a box through its node agent with a fresh key, checks the API answers with it, stores
 * the key sealed and has the box join every zone. A box that had no PowerDNS before joins every zone's NS set.
 */
export async function installOnBox(ctx: ProcedureContext, id: string): Promise<NameserverRow> {
  const box = await getNameserverBox(ctx.db, id)
  const apiKey = newApiKey()
  const installed = await askAgent(ctx.env, box, apiKey)
  assertCallable(ctx.env, installed.apiUrl)
  await checkPowerDns({ apiUrl: installed.apiUrl, apiKey, serverId: installed.serverId }, 'installed').catch(
    (error: unknown) => {
      if (error instanceof AppError) {
        throw new AppError(
          'upstream_failed',
          `the agent reported PowerDNS at ${installed.apiUrl}: ${error.detail}`,
        )
      }
      throw error
    },
  )
  const now = new Date()
  const hadPowerDns = hasPowerDns(box.nameserver)
  const installedBox: NameserverBox = {
    node: box.node,
    nameserver: {
      ...box.nameserver,
      powerDnsApiUrl: installed.apiUrl,
      powerDnsApiKeySealed: await sealSecret(ctx.env, apiKey),
      powerDnsServerId: installed.serverId,
      updatedAt: now,
    },
  }
  const joined = await joinZones(ctx.db, box.node.id, now)
  const nsSet = hadPowerDns
    ? NOTHING_SETTLED
    : await replaceNameservers(
        ctx.db,
        ctx.env,
        [...(await nameserverSet(ctx.db)), box.nameserver.hostname],
        null,
        now,
      )
  await ctx.commit(
    [
      ctx.db.update(nameservers).set(installedBox.nameserver).where(eq(nameservers.nodeId, box.node.id)),
      ...joined.writes,
      ...nsSet.writes,
    ],
    {
      targetId: box.node.id,
      detail: { apiUrl: installed.apiUrl, version: installed.version, nsBehind: nsSet.behind },
    },
  )
  await enqueueZoneSync(ctx.env, [...joined.jobs, ...nsSet.jobs])
  return toNameserverRow(installedBox)
}
