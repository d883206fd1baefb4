import type { OpenStream, WatchEvent, WatchRow } from '../probes/watch-stream'
import { peers } from './peers'

// Helpers of the monitoring test: how a cert probe reads Caddy's certificate, and reading watch frames until a
// set of probes shows the expected states.

async function changeCaddy(method: 'POST' | 'PUT', path: string, value: unknown): Promise<void> {
  const response = await fetch(`${peers.caddyAdminUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(value),
  })
  if (!response.ok) throw new Error(`Caddy's admin API answered ${response.status}: ${await response.text()}`)
}

/**
 * Makes Caddy serve `hostname`'s certificate to a handshake without SNI. The workerd tests resolve no test
 * name (only /etc/hosts), so a cert probe targets 127.0.0.1:<https port>, and a ClientHello for an address
 * carries no SNI. Caddy 2.6 picks the automation policy by the ClientHello's server name, empty here, and the
 * agent's TLS automation ends in a catch-all on-demand policy, which would take the connection's local address to
 * the ask gate (refused): a first policy for the empty name, not on demand, lets Caddy fall back to the default
 * SNI instead. The agent's next reload of Caddy's config takes both away again.
 */
export async function serveWithoutSni(hostname: string): Promise<void> {
  await changeCaddy('PUT', '/config/apps/tls/automation/policies/0', { subjects: [''] })
  await changeCaddy('POST', '/config/apps/http/servers/edge/tls_connection_policies/0/default_sni', hostname)
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
