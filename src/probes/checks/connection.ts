import type { Env } from '../../env'
import { isAddressLiteral, isProduction } from '../../lib/outbound-url'
import { OUTBOUND_REFUSAL, resolvedHostProblem } from '../../outside/fetch-outbound'
import { type HostPort, hostProblem } from '../target'
import { beforeDeadline, type Deadline, EXPIRED } from './deadline'

/** An open TCP connection and how long it took to open, or why there is none (a check's detail). */
export type Connection = { socket: Socket; latencyMs: number } | { problem: string }

/** Closes without waiting: awaiting close() on a connect still pending hangs until the kernel gives up (~127 s). */
export function hangUp(socket: Socket): void {
  socket.close().catch(() => {})
}

/**
 * Why production will not connect to `host`: the outbound rule on the name or literal, then (for a name) its A
 * and AAAA answers from the DoH resolver, as fetchOutbound judges a URL's host. Null when it may.
 */
async function destinationProblem(env: Env, host: string): Promise<string | null> {
  const problem = hostProblem(env, host)
  if (problem) return `${OUTBOUND_REFUSAL}: ${problem}`
  if (!isProduction(env) || isAddressLiteral(host)) return null
  const resolved = await resolvedHostProblem(host, env.DOH_RESOLVER_URL)
  return resolved && `${OUTBOUND_REFUSAL}: ${resolved.text}`
}

/**
 * Opens a plain TCP connection to `target` before `deadline`, raced against it: nothing else bounds a connect
 * whose SYN is dropped. The caller hangs the socket up.
 */
export async function openConnection(env: Env, target: HostPort, deadline: Deadline): Promise<Connection> {
  const problem = await destinationProblem(env, target.host)
  if (problem) return { problem }
  // Imported on first use: the Node tests build the app, which reaches this module, outside workerd.
  const { connect } = await import('cloudflare:sockets')
  const started = Date.now()
  const hostname = target.host.replace(/^\[(.*)\]$/, '$1')
  let socket: Socket
  try {
    socket = connect({ hostname, port: target.port }, { secureTransport: 'off', allowHalfOpen: false })
  } catch (error) {
    return { problem: `could not connect: ${error instanceof Error ? error.message : String(error)}` }
  }
  socket.closed.catch(() => {})
  try {
    const opened = await beforeDeadline(socket.opened, deadline)
    if (opened === EXPIRED) {
      hangUp(socket)
      return { problem: `connect timed out after ${deadline.ms} ms` }
    }
  } catch (error) {
    hangUp(socket)
    return { problem: `could not connect: ${error instanceof Error ? error.message : String(error)}` }
  }
  return { socket, latencyMs: Date.now() - started }
}
