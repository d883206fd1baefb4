import type { OpenStream, WatchEvent, WatchRow } from '../probes/watch-stream'
import { peers } from './peers'

// Helpers of the monitoring test: how a cert probe reads Caddy's certificate, and reading watch frames until a
// set of probes shows the expected states.

/**
 * Makes Caddy serve `hostname`'s certificate to a handshake without SNI. The workerd tests resolve no test
 * name (only /etc/hosts), so a cert probe targets 127.0.0.1:<https port>, and a ClientHello for an address
 * carries no SNI. The agent's next reconcile (a /load of its whole config) takes this away again.
 */
export async function serveWithoutSni(hostname: string): Promise<void> {
  const path = '/config/apps/http/servers/edge/tls_connection_policies/0/default_sni'
  const response = await fetch(`${peers.caddyAdminUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(hostname),
  })
  if (!response.ok) throw new Error(`Caddy's admin API answered ${response.status}: ${await response.text()}`)
}

/**
 * Reads events until every probe of `expected` shows its state, and returns the events read. Throws, naming
 * what was still missing, when `ms` pass first.
 */
export async function eventsUntil(
  stream: OpenStream,
  expected: Record<string, string>,
  ms: number,
): Promise<WatchEvent[]> {
  const deadline = Date.now() + ms
  const latest = new Map<string, WatchRow>()
  const events: WatchEvent[] = []
  const missing = () => Object.entries(expected).filter(([id, state]) => latest.get(id)?.state !== state)
  while (missing().length > 0) {
    const event = await stream.next(Math.max(0, deadline - Date.now()))
    if (!event) {
      const seen = missing().map(([id, state]) => `${id}: ${latest.get(id)?.state ?? 'no row'}, not ${state}`)
      throw new Error(`no event brought ${seen.join('; ')} within ${ms} ms`)
    }
    events.push(event)
    latest.set(event.row.id, event.row)
  }
  return events
}
