import type { EdgeState, EntryFailure, Forward, Vhost } from '../src/agent-contract/v1.ts'
import type { EdgeDelta } from './served-state.ts'
import { parseUpstream } from './upstream.ts'

/** One problem with a request field, as the problem+json `issues` list names it. */
export interface Issue {
  path: string
  message: string
}

// Lowercase DNS names only: anything else could carry Caddy placeholders (`{env.X}`) into the config.
const HOSTNAME = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)+$/

export const forwardKey = (forward: Pick<Forward, 'proto' | 'listenPort'>): string =>
  `${forward.proto}/${forward.listenPort}`

/** Issues for entries listed twice (by `key`), named by `field` at their index; `seen` collects the keys. */
function duplicates<T>(
  entries: readonly T[],
  key: (entry: T) => string,
  field: string,
  seen = new Set<string>(),
): Issue[] {
  const issues: Issue[] = []
  entries.forEach((entry, index) => {
    const name = key(entry)
    if (seen.has(name))
      issues.push({ path: field.replace('#', String(index)), message: `${name} is listed twice` })
    seen.add(name)
  })
  return issues
}

/**
 * What makes a state malformed as a whole: a hostname or proto/port listed twice (outcomes are reported by
 * hostname and by proto/port, so a duplicate could not be told apart from the entry it repeats). `hostnames`
 * collects the state's hostnames (which the diff against the served state reuses).
 */
export function validateEdgeState(state: EdgeState, hostnames = new Set<string>()): Issue[] {
  return [
    ...duplicates(state.vhosts, (vhost) => vhost.hostname, 'vhosts.#.hostname', hostnames),
    ...duplicates(state.forwards, forwardKey, 'forwards.#.listenPort'),
  ]
}

/** A delta is malformed like a state, and also when it both sets and removes one hostname or proto/port. */
export function validateEdgeDelta(delta: EdgeDelta): Issue[] {
  const issues = [
    ...duplicates(delta.vhosts, (vhost) => vhost.hostname, 'vhosts.#.hostname'),
    ...duplicates(delta.forwards, forwardKey, 'forwards.#.listenPort'),
  ]
  const setHostnames = new Set(delta.vhosts.map((vhost) => vhost.hostname))
  delta.removeHostnames.forEach((hostname, index) => {
    if (setHostnames.has(hostname))
      issues.push({ path: `removeHostnames.${index}`, message: `${hostname} is both set and removed` })
  })
  const setForwards = new Set(delta.forwards.map(forwardKey))
  delta.removeForwards.forEach((forward, index) => {
    if (setForwards.has(forwardKey(forward)))
      issues.push({
        path: `removeForwards.${index}`,
        message: `${forwardKey(forward)} is both set and removed`,
      })
  })
  return issues
}

/** Why the agent cannot serve a vhost whatever the machine's state (a name a proxy cannot match safely, an upstream it cannot dial), or null. */
export function vhostFailure({ hostname, upstream }: Vhost): EntryFailure | null {
  if (!HOSTNAME.test(hostname))
    return { kind: 'vhost', hostname, error: 'the hostname must be a lowercase DNS name (punycode)' }
  if (!parseUpstream(upstream))
    return { kind: 'vhost', hostname, error: `the upstream ${upstream} is not <address>:<port>` }
  return null
}

/** Why the agent cannot serve a forward whatever the machine's state, or null. */
export function forwardFailure({ listenPort, proto, upstream }: Forward): EntryFailure | null {
  if (parseUpstream(upstream)) return null
  return { kind: 'forward', listenPort, proto, error: `the upstream ${upstream} is not <address>:<port>` }
}
