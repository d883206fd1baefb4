import { inArray } from 'drizzle-orm'
import type { NodeCheck } from '../../agent-contract/checks'
import { db } from '../../db/client'
import { nodes } from '../../db/schema/fleet'
import type { Env } from '../../env'
import { openSecret } from '../../lib/secrets'
import { runNodeCheck } from '../../outside/node-agent'
import { type CheckTarget, checkVerdict } from '../checks/run-check'
import { down, type Verdict } from '../checks/verdict'
import {
  CertConfigSchema,
  type CheckedConfig,
  DnsConfigSchema,
  HttpConfigSchema,
  isCheckedConfig,
  TcpConfigSchema,
} from '../config'
import type { MonitorSnapshot } from '../monitor/api'
import type { RoundOpening } from '../monitor/rpc'
import { type NodeScope, nodeCheckRefusal } from './node-rule'
import { nodeScopeColumns } from './nodes'
import type { RoundPlace } from './round'
import { EDGE, nodeLocations } from './schema'

/** How long after a check's timeout a node's result may still arrive before the node counts as not answering. */
export const NODE_ANSWER_MARGIN_MS = 15_000

/** The monitor's side of a round: the job calls its stub, the monitor's own alarm calls itself. */
export interface RoundSink {
  open(opening: RoundOpening): Promise<string[]>
  report(checkId: string, location: string, verdict: Verdict): Promise<unknown>
}

type NodeRow = NodeScope & { id: string; agentSecretSealed: string }

async function readNodes(env: Env, ids: string[]): Promise<Map<string, NodeRow>> {
  if (ids.length === 0) return new Map()
  const rows = await db(env.DB)
    .select({ ...nodeScopeColumns, agentSecretSealed: nodes.agentSecretSealed })
    .from(nodes)
    .where(inArray(nodes.id, ids))
  return new Map(rows.map((row) => [row.id, row]))
}

/** What the node runs: the probe's type and target and the keys of its config a check reads. */
export function nodeCheckOf(probe: CheckTarget): NodeCheck {
  switch (probe.type) {
    case 'http': {
      const { timeoutMs, method, expectedStatus, keyword, slowMs, followRedirects } = HttpConfigSchema.parse(
        probe.config,
      )
      if (method === 'POST') throw new Error(`probe ${probe.id} POSTs, which the node rule keeps from nodes`)
      const check = { type: 'http' as const, target: probe.target, timeoutMs, method, expectedStatus }
      return { ...check, followRedirects, ...(keyword ? { keyword } : {}), ...(slowMs ? { slowMs } : {}) }
    }
    case 'tcp':
      return { type: 'tcp', target: probe.target, timeoutMs: TcpConfigSchema.parse(probe.config).timeoutMs }
    case 'dns': {
      const { timeoutMs, recordType, expectedValues } = DnsConfigSchema.parse(probe.config)
      return { type: 'dns', target: probe.target, timeoutMs, recordType, expectedValues }
    }
    case 'cert': {
      const { timeoutMs, certWarnDays } = CertConfigSchema.parse(probe.config)
      return { type: 'cert', target: probe.target, timeoutMs, certWarnDays }
    }
    case 'heartbeat':
      throw new Error(`probe ${probe.id} is a heartbeat, which no location checks`)
  }
}

/**
 * Sends the check to the node, with the private ranges it opens; null once it took it (its verdict comes back by
 * callback), else the failure. A check the node rule refuses (stored before the rule, or whose node's
 * checkAllowCidrs shrank since) is not sent: the location fails, naming the rule.
 */
async function sendToNode(
  env: Env,
  probe: MonitorSnapshot,
  scheduledAt: number,
  node: NodeRow | undefined,
): Promise<Verdict | null> {
  if (!node) return down('is no longer a node of this panel')
  const refusal = nodeCheckRefusal(probe, node)
  if (refusal) return down(`not sent: ${refusal.problem}`)
  // An older agent's strict schema refuses the key: it goes only with something in it.
  const allowCidrs = node.checkAllowCidrs.length > 0 ? { allowCidrs: [...node.checkAllowCidrs] } : {}
  const request = {
    probeId: probe.id,
    scheduledAt,
    location: node.id,
    check: nodeCheckOf(probe),
    ...allowCidrs,
  }
  try {
    const agent = { agentUrl: node.agentUrl, agentSecret: await openSecret(env, node.agentSecretSealed) }
    await runNodeCheck(agent, request)
    return null
  } catch (error) {
    return down(`did not take the check: ${error instanceof Error ? error.message : error}`)
  }
}

/**
 * Runs one scheduled check of a probe with node locations: opens its round on the monitor, runs the edge's share
 * here and asks each node to run its own (whose verdicts come back through the check-results callback). A
 * location already filled (a retried job) is not asked again; a node that cannot be asked fails at once.
 */
export async function dispatchRound(
  env: Env,
  snapshot: MonitorSnapshot,
  scheduledAt: number,
  sink: RoundSink,
): Promise<void> {
  const config: CheckedConfig | null = isCheckedConfig(snapshot.config) ? snapshot.config : null
  if (!config) return
  const locations = snapshot.locations ?? [EDGE]
  const nodeRows = await readNodes(env, nodeLocations(locations))
  const checkId = `${snapshot.id}:${scheduledAt}`
  const at = Date.now()
  const places = locations.map(
    (key): Omit<RoundPlace, 'verdict'> =>
      key === EDGE
        ? { key, kind: 'edge', label: 'edge' }
        : { key, kind: 'node', label: `node ${nodeRows.get(key)?.name ?? key}` },
  )
  const deadline = at + config.timeoutMs + NODE_ANSWER_MARGIN_MS
  const waiting = new Set(await sink.open({ checkId, at, deadline, places }))
  if (waiting.size === 0) return
  await Promise.all(
    places
      .filter((place) => waiting.has(place.key))
      .map(async (place) => {
        const verdict =
          place.kind === 'edge'
            ? await checkVerdict(env, snapshot)
            : await sendToNode(env, snapshot, scheduledAt, nodeRows.get(place.key))
        if (verdict) await sink.report(checkId, place.key, verdict)
      }),
  )
}
