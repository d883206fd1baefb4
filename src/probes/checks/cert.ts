import { eq } from 'drizzle-orm'
import { db } from '../../db/client'
import { domains } from '../../db/schema/domains'
import type { Env } from '../../env'
import { isAddressLiteral } from '../../lib/outbound-url'
import type { CertConfig } from '../config'
import type { ProbeTargetKind } from '../monitor/api'
import { hangUp, openConnection } from './connection'
import { startDeadline } from './deadline'
import { parseHostPort } from './target'
import { readServedValidity } from './tls12-certificate'
import { down, type Verdict } from './verdict'

// Where the expiry comes from:
// - a probe on a domain (targetKind `domain` with its id): the domain row's certExpiresAt, which the node agents
//   report for the certificate they serve. No network; the check judges what the edge serves.
// - any other target: the server itself, through a TLS 1.2-only handshake over connect() (the Workers runtime
//   exposes no peer certificate). A server that speaks only TLS 1.3, or answers anything else, is down with a
//   detail saying the expiry could not be read: never green without a date.

const DAY_MS = 86_400_000
const TLS_PORT = 443

const day = (date: Date) => date.toISOString().slice(0, 10)
const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`

/** Expired is down, within certWarnDays degraded, else up. */
function judgeExpiry(
  validity: { notAfter: Date; notBefore?: Date },
  latencyMs: number | null,
  config: CertConfig,
): Verdict {
  const now = Date.now()
  const left = validity.notAfter.getTime() - now
  if (left <= 0) {
    const ago = Math.floor(-left / DAY_MS)
    const when = ago === 0 ? 'today' : `${plural(ago, 'day')} ago`
    return {
      outcome: 'down',
      latencyMs,
      detail: `certificate expired ${when} (on ${day(validity.notAfter)})`,
    }
  }
  if (validity.notBefore && validity.notBefore.getTime() > now)
    return {
      outcome: 'down',
      latencyMs,
      detail: `certificate is not valid before ${day(validity.notBefore)}`,
    }
  const days = Math.floor(left / DAY_MS)
  if (left < config.certWarnDays * DAY_MS)
    return {
      outcome: 'degraded',
      latencyMs,
      detail: `certificate expires in ${days === 0 ? 'less than a day' : plural(days, 'day')} (warn at ${config.certWarnDays})`,
    }
  return {
    outcome: 'up',
    latencyMs,
    detail: `certificate valid until ${day(validity.notAfter)} (${plural(days, 'day')} left)`,
  }
}

async function reportedExpiry(env: Env, domainId: string, config: CertConfig): Promise<Verdict> {
  const [row] = await db(env.DB)
    .select({ certState: domains.certState, certExpiresAt: domains.certExpiresAt })
    .from(domains)
    .where(eq(domains.id, domainId))
  if (!row) return down('the domain no longer exists')
  if (!row.certExpiresAt)
    return down(`no certificate reported for the domain yet (certificate ${row.certState})`)
  return judgeExpiry({ notAfter: row.certExpiresAt }, null, config)
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
    return judgeExpiry(read, Date.now() - started, config)
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
