import { and, eq } from 'drizzle-orm'
import type { Context } from 'hono'
import { RENEWAL_WINDOWS_CALLBACK, RenewalWindowReportSchema } from '../agent-contract/renewal-windows'
import { certificateObservations } from '../db/schema/custom-hostnames'
import type { AppEnv } from '../env'
import { authenticateCallback, parseCallbackBody } from './authenticate'
import { ownersRoutedToNode } from './certificates'

export { RENEWAL_WINDOWS_CALLBACK }

type Observation = typeof certificateObservations.$inferSelect

/**
 * `POST /api/agent/v2/renewal-windows`: a node reports the CA's suggested renewal window (ACME ARI) per
 * certificate it serves (authenticateCallback). A window is kept on the observation of the claim that holds the
 * hostname at receipt, from this node, and only while that observation is of the same serial: one for a
 * certificate since replaced is ignored. All in one batch.
 */
export async function receiveRenewalWindows(c: Context<AppEnv>): Promise<Response> {
  const { nodeId, raw, database } = await authenticateCallback(c, RENEWAL_WINDOWS_CALLBACK)
  const { windows } = parseCallbackBody(raw, RenewalWindowReportSchema)
  const owners = await ownersRoutedToNode(database, nodeId, [...new Set(windows.map((w) => w.hostname))])
  const [first, ...rest] = windows.flatMap((window) => {
    const ownerId = owners.get(window.hostname)
    if (!ownerId) return []
    return [
      database
        .update(certificateObservations)
        .set({
          renewalWindowStart: new Date(window.start),
          renewalWindowEnd: new Date(window.end),
          renewalExplanationUrl: window.explanationUrl ?? null,
        })
        .where(
          and(
            eq(certificateObservations.ownerId, ownerId),
            eq(certificateObservations.nodeId, nodeId),
            eq(certificateObservations.serial, window.serial),
            eq(certificateObservations.hostname, window.hostname),
          ),
        )
        .returning({ ownerId: certificateObservations.ownerId }),
    ]
  })
  const results = first ? await database.batch([first, ...rest]) : []
  const accepted = results.filter((rows) => rows.length > 0).length
  return c.json({ accepted, ignored: windows.length - accepted })
}

/** What `cert` answers of the served certificate's renewal window, when the node reported one. */
export function renewalWindowAnswer(observation: Observation | null) {
  if (!observation?.renewalWindowStart || !observation.renewalWindowEnd) return {}
  return {
    renewalWindow: {
      start: observation.renewalWindowStart.toISOString(),
      end: observation.renewalWindowEnd.toISOString(),
      ...(observation.renewalExplanationUrl ? { explanationUrl: observation.renewalExplanationUrl } : {}),
    },
  }
}
