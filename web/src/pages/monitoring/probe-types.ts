import type { Procedures } from 'hosting-panel-api/client'

export type Probe = Procedures['probes']['get']['output']
export type ProbeSummary = Procedures['probes']['list']['output'][number]
export type ProbeType = Probe['type']
export type TargetKind = Probe['targetKind']
export type HistoryRow = Procedures['probes']['history']['output'][number]

export const PROBE_TYPES: readonly ProbeType[] = ['http', 'tcp', 'dns', 'cert', 'heartbeat']
export const TARGET_KINDS: readonly TargetKind[] = ['external', 'node', 'instance', 'site', 'domain']

/** What `target` means for each type, as docs/monitoring.md puts it. */
export const TARGET_HINT: Record<ProbeType, string> = {
  http: 'An absolute URL, e.g. https://example.com/health',
  tcp: 'host:port (IPv6 in brackets)',
  dns: 'The name looked up',
  cert: 'host or host:port (443 by default)',
  heartbeat: 'A label only: pings come to the heartbeat URL',
}
