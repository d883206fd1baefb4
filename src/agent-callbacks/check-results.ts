import { eq } from 'drizzle-orm'
import type { Context } from 'hono'
import { type CheckResultRecorded, CheckResultReportSchema } from '../agent-contract/checks'
import { CALLBACK_PATHS } from '../agent-contract/v1'
import { probes } from '../db/schema/probes'
import type { AppEnv } from '../env'
import { conflict, forbidden } from '../rpc/errors'
import { authenticateCallback, parseCallbackBody } from './authenticate'

export const CHECK_RESULTS_PATH = CALLBACK_PATHS.checkResults

/**
 * `POST /api/agent/v2/check-results`: a node posts the verdict of a check the panel asked it to run
 * (authenticateCallback: signed, nonce used once). The node reports only for itself (`location` is its own id)
 * and only for a live probe that checks from it (403 otherwise); the probe's monitor takes the verdict into the
 * check's round, or answers that no round waits for it (409: judged already — too late or sent twice).
 */
export async function receiveCheckResult(c: Context<AppEnv>): Promise<Response> {
  const { nodeId, raw, database } = await authenticateCallback(c, CHECK_RESULTS_PATH)
  const { probeId, scheduledAt, location, ...verdict } = parseCallbackBody(raw, CheckResultReportSchema)
  if (location !== nodeId)
    throw forbidden('location: a node reports the checks it ran itself, never another’s')
  const [probe] = await database
    .select({ type: probes.type, locations: probes.locations, archivedAt: probes.archivedAt })
    .from(probes)
    .where(eq(probes.id, probeId))
  if (!probe || probe.archivedAt !== null || probe.type === 'heartbeat' || !probe.locations.includes(nodeId))
    throw forbidden(`probeId: probe ${probeId} is not checked from this node`)
  const checkId = `${probeId}:${scheduledAt}`
  const recorded = await c.env.PROBE_MONITOR.getByName(probeId).reportLocation(checkId, nodeId, verdict)
  if (!recorded)
    throw conflict(
      `no check of probe ${probeId} scheduled at ${scheduledAt} waits for this node's result (it was judged already: the result came too late or twice, or it was never asked for)`,
    )
  const answer: CheckResultRecorded = { recorded: true }
  return c.json(answer)
}
