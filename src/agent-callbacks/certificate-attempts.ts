import type { Context } from 'hono'
import {
  CERTIFICATE_ATTEMPTS_CALLBACK,
  CertificateAttemptReportSchema,
} from '../agent-contract/certificate-attempts'
import type { AppEnv } from '../env'
import { keepAttempt } from './attempts'
import { authenticateCallback, parseCallbackBody } from './authenticate'
import { ownersRoutedToNode } from './certificates'

export { CERTIFICATE_ATTEMPTS_CALLBACK }

/**
 * `POST /api/agent/v2/certificate-attempts`: a node reports the newest issuance outcome Caddy logged per
 * hostname (authenticateCallback). Only hostnames this node routes now are kept, each for the claim that holds
 * the hostname at receipt, all in one batch.
 */
export async function receiveCertificateAttempts(c: Context<AppEnv>): Promise<Response> {
  const { nodeId, raw, database } = await authenticateCallback(c, CERTIFICATE_ATTEMPTS_CALLBACK)
  const { attempts } = parseCallbackBody(raw, CertificateAttemptReportSchema)
  const owners = await ownersRoutedToNode(database, nodeId, [...new Set(attempts.map((a) => a.hostname))])
  const receivedAt = new Date()
  const [first, ...rest] = attempts.flatMap((attempt) => {
    const ownerId = owners.get(attempt.hostname)
    return ownerId ? [keepAttempt(database, { ownerId, nodeId }, attempt, receivedAt)] : []
  })
  if (first) await database.batch([first, ...rest])
  const accepted = rest.length + (first ? 1 : 0)
  return c.json({ accepted, ignored: attempts.length - accepted })
}
