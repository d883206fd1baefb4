import type { Env } from '../../env'
import { isAddressLiteral, isProduction } from '../../lib/outbound-url'
import { approvedAddresses, OUTBOUND_REFUSAL } from '../../outside/fetch-outbound'
import { beforeDeadline, type Deadline, EXPIRED } from './deadline'
import { type HostPort, hostProblem } from './target'

/** An open TCP connection and how long it took to open, or why there is none (a check's detail). */
export type Connection = { socket: Socket; latencyMs: number } | { problem: string }

/** Closes without waiting: awaiting close() on a connect still pending hangs until the kernel gives up (~127 s). */
export function hangUp(socket: Socket): void {
  socket.close().catch(() => {})
}

/**
 * Where to connect for `host`, or why production will not: the outbound rule on the name or literal, then (for
 * a name) its A and AAAA answers from the DoH resolver, as fetchOutbound judges a URL's host. A name is then
 * connected to by the address the rule approved, never resolved again, so a second answer (DNS rebinding)
 * cannot move the connection inward. Development connects to the name as given.
 */
async function approvedDestination(
  env: Env,
  host: string,
): Promise<{ hostname: string } | { problem: string }> {
  const problem = hostProblem(env, host)
  if (problem) return { problem: `${OUTBOUND_REFUSAL}: ${problem}` }
  const hostname = host.replace(/^\[(.*)\]$/, '$1')
  if (!isProduction(env) || isAddressLiteral(host)) return { hostname }
  const judged = await approvedAddresses(host, env.DOH_RESOLVER_URL)
  if ('problem' in judged) return { problem: `${OUTBOUND_REFUSAL}: ${judged.problem.text}` }
  const [address] = judged.addresses
  return address
    ? { hostname: address }
    : { problem: `${OUTBOUND_REFUSAL}: ${host} does not resolve to any address` }
}

/**
 * Opens a plain TCP connection to `target` (by its approved address, see approvedDestination) before `deadline`,
 * raced against it: nothing else bounds a connect whose SYN is dropped. The caller hangs the socket up (and, for
 * TLS, names the host itself: its SNI is the target's name, not the address).
 */
export async function openConnection(env: Env, target: HostPort, deadline: Deadline): Promise<Connection> {
  const destination = await approvedDestination(env, target.host)
  if ('problem' in destination) return destination
  // Imported on first use: the Node tests build the app, which reaches this module, outside workerd.
  const { connect } = await import('cloudflare:sockets')
  const started = Date.now()
  const { hostname } = destination
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
