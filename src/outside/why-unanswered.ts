/**
 * Why a request got no answer, when fetch's own error does not say: workerd words a refused connection, a lost
 * one and (under wrangler dev) a certificate it does not trust alike ("Network connection lost."), and an
 * unresolvable name or a failed TLS handshake as "internal error; reference = …", keeping the cause in its own
 * log (the runtime never hands over the certificate, so its issuer cannot be named). A plain TCP connection to
 * the same host and port, then a TLS one for https, tells them apart.
 */
export type NoAnswerKind = 'timed-out' | 'refused' | 'no-connection' | 'tls-handshake' | 'lost'

export interface NoAnswer {
  kind: NoAnswerKind
  /** In an operator's words, naming host and port, never the path or query (they may carry a secret). */
  reason: string
}

/** Why a handshake fails with a server that accepts connections, for the messages that name the server. */
export const TLS_HANDSHAKE_CAUSES =
  "the certificate may be self-signed, expired, for another name or from a CA the panel's runtime does not know (for a local test CA, start the panel with NODE_EXTRA_CA_CERTS=<its root certificate>), or the port may not speak TLS"

// A fetch that failed at once leaves its deadline to the diagnosis; below this there is no time to tell.
const LEAST_DIAGNOSIS_MS = 200
const OPAQUE = /^internal error; reference = /
const LOST = 'Network connection lost.'

type Opened = 'opened' | 'timed-out' | { error: string }

async function open(
  hostname: string,
  port: number,
  secureTransport: 'off' | 'on',
  ms: number,
): Promise<Opened> {
  // Imported on first use: the Node tests build the app, which reaches this module, outside workerd.
  const { connect } = await import('cloudflare:sockets')
  let socket: Socket
  try {
    socket = connect({ hostname, port }, { secureTransport, allowHalfOpen: false })
  } catch (error) {
    return { error: messageOf(error) }
  }
  socket.closed.catch(() => {})
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<'timed-out'>((resolve) => {
    timer = setTimeout(() => resolve('timed-out'), ms)
  })
  const opened = socket.opened.then(() => 'opened' as const)
  // A connect still pending when the time is up may fail later: nobody waits for it then.
  opened.catch(() => {})
  try {
    return await Promise.race([opened, late])
  } catch (error) {
    return { error: messageOf(error) }
  } finally {
    if (timer !== undefined) clearTimeout(timer)
    // Not awaited: closing a connect still pending waits for the kernel to give up.
    socket.close().catch(() => {})
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

/**
 * Classifies a failed fetch of `url` (not a timeout: the caller knows those) within `ms`. Only the runtime's
 * ambiguous words are looked into: a TCP connect that times out; one that fails (refused when fetch said the
 * connection was lost, else the name did not resolve or nothing is reachable there); or one that opens while a
 * TLS connect does not (the handshake failed: an untrusted certificate, or no TLS on that port). A connection
 * that opens both ways lost the request itself.
 */
export async function whyUnanswered(url: URL, error: unknown, ms: number): Promise<NoAnswer> {
  const said = messageOf(error)
  if (said !== LOST && !OPAQUE.test(said)) return { kind: 'lost', reason: said }
  const https = url.protocol === 'https:'
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1')
  const port = Number(url.port) || (https ? 443 : 80)
  const where = `${url.hostname}:${port}`
  const lost = {
    kind: 'lost' as const,
    reason:
      said === LOST ? `the connection to ${where} was lost` : `the request to ${where} failed in the runtime`,
  }
  if (ms < LEAST_DIAGNOSIS_MS) return lost
  const started = Date.now()
  const tcp = await open(hostname, port, 'off', ms)
  if (tcp === 'timed-out') {
    return { kind: 'timed-out', reason: `a connection to ${where} was not accepted within ${ms / 1000} s` }
  }
  if (tcp !== 'opened') {
    return said === LOST
      ? { kind: 'refused', reason: `${where} refused the connection (nothing listens there)` }
      : {
          kind: 'no-connection',
          reason: `no connection to ${where} could be made: the name does not resolve from the panel, or nothing there is reachable`,
        }
  }
  if (!https) return lost
  const tls = await open(hostname, port, 'on', Math.max(LEAST_DIAGNOSIS_MS, ms - (Date.now() - started)))
  if (tls === 'opened') return lost
  return {
    kind: 'tls-handshake',
    reason: `${where} accepts connections, but the TLS handshake failed: ${TLS_HANDSHAKE_CAUSES}`,
  }
}
