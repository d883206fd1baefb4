import type { EdgeState, EntryFailure } from '../src/agent-contract/v1.ts'
import { parseUpstream } from './upstream.ts'

/** One problem with a request field, as the problem+json `issues` list names it. */
export interface Issue {
  path: string
  message: string
}

// Lowercase DNS names only: anything else could carry Caddy placeholders (`{env.X}`) into the config.
const HOSTNAME = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)+$/

/**
 * What makes a state malformed as a whole: a hostname or proto/port listed twice (outcomes are reported by
 * hostname and by proto/port, so a duplicate could not be told apart from the entry it repeats).
 */
export function validateEdgeState(state: EdgeState): Issue[] {
  const issues: Issue[] = []
  const hostnames = new Set<string>()
  state.vhosts.forEach((vhost, index) => {
    if (hostnames.has(vhost.hostname)) {
      issues.push({ path: `vhosts.${index}.hostname`, message: `${vhost.hostname} is listed twice` })
    }
    hostnames.add(vhost.hostname)
  })
  const listeners = new Set<string>()
  state.forwards.forEach((forward, index) => {
    const key = `${forward.proto}/${forward.listenPort}`
    if (listeners.has(key))
      issues.push({ path: `forwards.${index}.listenPort`, message: `${key} is listed twice` })
    listeners.add(key)
  })
  return issues
}

/**
 * The entries the agent cannot serve whatever the machine's state, each with the reason: a hostname a proxy
 * cannot match safely, an upstream it cannot dial. They are left out of what is applied; the others apply.
 */
export function unservableEntries(state: EdgeState): EntryFailure[] {
  const failed: EntryFailure[] = []
  for (const { hostname, upstream } of state.vhosts) {
    if (!HOSTNAME.test(hostname)) {
      failed.push({ kind: 'vhost', hostname, error: 'the hostname must be a lowercase DNS name (punycode)' })
    } else if (!parseUpstream(upstream)) {
      failed.push({ kind: 'vhost', hostname, error: `the upstream ${upstream} is not <address>:<port>` })
    }
  }
  for (const { listenPort, proto, upstream } of state.forwards) {
    if (!parseUpstream(upstream)) {
      failed.push({
        kind: 'forward',
        listenPort,
        proto,
        error: `the upstream ${upstream} is not <address>:<port>`,
      })
    }
  }
  return failed
}

/** The state without the failed entries: what the proxy and the forwarders are given. */
export function withoutEntries(state: EdgeState, failed: readonly EntryFailure[]): EdgeState {
  const hostnames = new Set(failed.flatMap((entry) => (entry.kind === 'vhost' ? [entry.hostname] : [])))
  const ports = new Set(
    failed.flatMap((entry) => (entry.kind === 'forward' ? [`${entry.proto}/${entry.listenPort}`] : [])),
  )
  return {
    configVersion: state.configVersion,
    vhosts: state.vhosts.filter((vhost) => !hostnames.has(vhost.hostname)),
    forwards: state.forwards.filter((forward) => !ports.has(`${forward.proto}/${forward.listenPort}`)),
  }
}
