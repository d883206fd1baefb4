import { eq } from 'drizzle-orm'
import { db } from '../../db/client'
import { domains } from '../../db/schema/domains'
import type { Env } from '../../env'
import { isAddressLiteral } from '../../lib/outbound-url'
import type { CertConfig } from '../config'
import type { ProbeTargetKind } from '../monitor/api'
import { hangUp, openConnection } from './connection'
import { startDeadline } from './deadline'
import { judgeExpiry } from './expiry'
import { parseHostPort } from './target'
import { readServedValidity } from './tls12-certificate'
import { down, type Verdict } from './verdict'

// Where the expiry comes from:
// - a probe on a domain (targetKind `domain` with its id): the domain row's certExpiresAt, which the node agents
//   report for the certificate they serve. No network; the check judges what the edge serves.
// - any other target: the server itself, through a TLS 1.2-only handshake over connect() (the Workers runtime
//   exposes no peer certificate). A server that speaks only TLS 1.3, or answers anything else, is down with a
//   detail saying the expiry could not be read: never green without a date. A probe located on a node has the
//   node's agent read it instead, over a full handshake (see locations/).

const TLS_PORT = 443

async function reportedExpiry(env: Env, domainId: string, config: CertConfig): Promise<Verdict> {
  const [row] = await db(env.DB)
    .select({ certState: domains.certState, certExpiresAt: domains.certExpiresAt })
    .from(domains)
    .where(eq(domains.id, domainId))
  if (!row) return down('the domain no longer exists')
  if (!row.certExpiresAt)
    return down(`no certificate reported for the domain yet (certificate ${row.certState})`)
  return judgeExpiry({ notAfter: row.certExpiresAt }, null, config.certWarnDays)
}

async function servedExpiry(env: Env, target: string, config: CertConfig): Promise<Verdict> {
  const address = parseHostPort(target, TLS_PORT)
  if (!address) return down(`the target ${target} is not a host or host:port`)
  const deadline = startDeadline(config.timeoutMs)
  try {
    const connection = await openConnection(env, address, deadline)
    if ('problem' in connection) return down(connection.problem)
    const started = Date.now() - connection.latencyMs
    const serverName = isAddressLiteral(address.host) ? null : address.host
    const read = await readServedValidity(connection.socket, serverName, deadline).finally(() =>
      hangUp(connection.socket),
    )
    if ('problem' in read) return down(`could not read the certificate's expiry: ${read.problem}`)
    return judgeExpiry(read, Date.now() - started, config.certWarnDays)
  } finally {
    deadline.cancel()
  }
}

/** Judges a certificate's expiry: from the domain row for a domain's probe, else from the server (see above). */
export function checkCert(
  env: Env,
  probe: { targetKind: ProbeTargetKind; targetId: string | null; target: string },
  config: CertConfig,
): Promise<Verdict> {
  return probe.targetKind === 'domain' && probe.targetId !== null
    ? reportedExpiry(env, probe.targetId, config)
    : servedExpiry(env, probe.target, config)
}
