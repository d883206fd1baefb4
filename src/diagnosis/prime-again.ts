import { keepObservation } from '../agent-callbacks/observations'
import type { CertificateObservation } from '../agent-contract/v1'
import type { BatchItem, Db } from '../db/client'
import { agentForSite } from '../domains/edge-steps'
import type { Env } from '../env'
import { primeCertificate } from '../outside/node-agent'

/**
 * Asks the node serving the site to obtain the hostname's certificate now (the agent's prime: a TLS handshake
 * that makes it issue on demand) and keeps what it then serves, with `follow`'s writes. Meant for waitUntil,
 * off a check's path: issuance takes up to a minute and a half, and a refusal changes nothing the check
 * answered (the node's reports and the next check show it).
 */
export async function primeAgain(
  env: Env,
  db: Db,
  owner: { id: string; siteId: string; hostname: string },
  follow: (observed: CertificateObservation) => BatchItem[] = () => [],
): Promise<void> {
  const agent = await agentForSite(env, db, owner.siteId)
  if (!agent) return
  try {
    const observed = await primeCertificate(agent, owner.hostname)
    const kept = keepObservation(db, { ownerId: owner.id, nodeId: agent.nodeId }, observed, new Date())
    await db.batch([kept, ...follow(observed)])
  } catch (error) {
    console.warn(`asking the node to issue ${owner.hostname} again failed`, error)
  }
}
