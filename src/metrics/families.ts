import { PROBE_STATES } from '../db/schema/probes'
import { LATENCY_BOUNDS_MS, parseLatencyBuckets } from '../probes/latency-buckets'
import { type Family, histogramSamples, type Labels, type Sample } from './exposition'
import { dayStart, type ProbeRow, type Scraped, type Slice } from './read'

const seconds = (ms: number) => ms / 1000

// What a heartbeat's last result says when it was a ping (ledger-api.ts, the monitor's ping); a missed deadline
// says "no ping …" or "started, not finished …" and is no ping.
const isPing = (detail: string | null) =>
  detail === 'ping received' || detail === 'failure signalled' || /^exit status \d+$/.test(detail ?? '')

/** The rows of one family within the limit, and whether the limit cut some. */
function within<T>(rows: readonly T[], slice: Slice): { rows: T[]; cut: boolean } {
  return { rows: rows.slice(0, slice.limit), cut: rows.length > slice.limit }
}

const probeLabels = (p: ProbeRow): Labels => ({ probe_id: p.id, probe_name: p.name, probe_type: p.type })

function probeFamilies(probes: readonly ProbeRow[], now: number): Family[] {
  const created = seconds(dayStart(now))
  return [
    {
      name: 'probe_state',
      type: 'stateset',
      help: 'The probe state the panel shows: 1 for the current one of up, down, degraded, flapping, paused.',
      samples: probes.flatMap((p) =>
        PROBE_STATES.map((state) => ({
          labels: { ...probeLabels(p), probe_state: state },
          value: p.state === state ? 1 : 0,
        })),
      ),
    },
    {
      name: 'probe_up',
      type: 'gauge',
      help: 'Whether the probe target answers: 1 when up or degraded, 0 when down or flapping; absent while paused.',
      samples: probes
        .filter((p) => p.state !== 'paused')
        .map((p) => ({ labels: probeLabels(p), value: p.state === 'up' || p.state === 'degraded' ? 1 : 0 })),
    },
    {
      name: 'probe_check_latency_seconds',
      type: 'histogram',
      unit: 'seconds',
      help: "Latency of the probe's timed checks so far this UTC day (its daily rollup, up to a minute behind); starts again at 00:00 UTC.",
      samples: probes.flatMap((p): Sample[] =>
        p.latency_count === null
          ? []
          : histogramSamples(
              { probe_id: p.id },
              LATENCY_BOUNDS_MS.map(seconds),
              parseLatencyBuckets(p.latency_buckets),
              { count: p.latency_count, sum: seconds(p.latency_sum_ms ?? 0), createdSeconds: created },
            ),
      ),
    },
    {
      name: 'probe_heartbeat_last_ping_age_seconds',
      type: 'gauge',
      unit: 'seconds',
      help: "Seconds since the heartbeat's last ping; absent before the first and while its last result is a missed deadline (probe_up is 0 then).",
      samples: probes
        .filter((p) => p.type === 'heartbeat' && p.last_checked_at !== null && isPing(p.last_detail))
        .map((p) => ({
          labels: probeLabels(p),
          value: Math.max(0, seconds(now - (p.last_checked_at ?? now))),
        })),
    },
  ]
}

/** Every family of one scrape, in a fixed order, with the truncation flags last. */
export function families(scraped: Scraped, slice: Slice, now: number): Family[] {
  const probes = within(scraped.probes, slice)
  const domains = within(scraped.domains, slice)
  const certs = within(scraped.hostnameCerts, slice)
  const nodes = within(scraped.nodes, slice)
  const checked = nodes.rows.filter((n) => n.check_state !== null)
  return [
    ...probeFamilies(probes.rows, now),
    {
      name: 'domain_certificate_expiry_timestamp_seconds',
      type: 'gauge',
      unit: 'seconds',
      help: "When the certificate the domain's node serves expires (Unix time).",
      samples: domains.rows.map((d) => ({
        labels: { domain_id: d.id, hostname: d.hostname },
        value: seconds(d.cert_expires_at),
      })),
    },
    {
      name: 'custom_hostname_certificate_expiry_timestamp_seconds',
      type: 'gauge',
      unit: 'seconds',
      help: 'When the certificate a node reported for the custom hostname expires (Unix time), per node.',
      samples: certs.rows.map((o) => ({
        labels: { custom_hostname_id: o.owner_id, hostname: o.hostname, node_id: o.node_id },
        value: seconds(o.not_after),
      })),
    },
    {
      name: 'node_up',
      type: 'gauge',
      help: "Whether the node's agent and proxy answered its last health check (1) or not (0); absent before the first.",
      samples: checked.map((n) => ({
        labels: { node_id: n.id, node_name: n.name },
        value: n.check_state === 'ok' ? 1 : 0,
      })),
    },
    {
      name: 'node_last_seen_timestamp_seconds',
      type: 'gauge',
      unit: 'seconds',
      help: "When the node's agent last answered a health check (Unix time).",
      samples: checked
        .filter((n) => n.last_seen_at !== null)
        .map((n) => ({ labels: { node_id: n.id, node_name: n.name }, value: seconds(n.last_seen_at ?? 0) })),
    },
    {
      name: 'panel_failed_jobs',
      type: 'gauge',
      help: 'Queue jobs that failed, by kind and state (retrying, dead, retried); in the first shard only.',
      samples: scraped.jobs.map((j) => ({ labels: { kind: j.kind, state: j.state }, value: j.n })),
    },
    {
      name: 'panel_metrics_truncated',
      type: 'gauge',
      help: "1 when this scrape's shard holds more rows of the family than its limit, which were left out: raise limit or shards.",
      samples: Object.entries({ probes, domains, custom_hostname_certificates: certs, nodes }).map(
        ([family, read]) => ({ labels: { family }, value: read.cut ? 1 : 0 }),
      ),
    },
  ]
}
