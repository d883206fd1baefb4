import type { EdgeState } from '../src/agent-contract/v1.ts'
import { parseUpstream } from './upstream.ts'

/** One problem with a request field, as the problem+json `issues` list names it. */
export interface Issue {
  path: string
  message: string
}

// Lowercase DNS names only: anything else could carry Caddy placeholders (`{env.X}`) into the config.
const HOSTNAME = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)+$/

/** What the contract's schema cannot say: hostnames a proxy can match, upstreams it can dial, no duplicates. */
export function validateEdgeState(state: EdgeState): Issue[] {
  const issues: Issue[] = []
  const hostnames = new Set<string>()
  state.vhosts.forEach((vhost, index) => {
    if (!HOSTNAME.test(vhost.hostname)) {
      issues.push({ path: `vhosts.${index}.hostname`, message: 'must be a lowercase DNS name (punycode)' })
    } else if (hostnames.has(vhost.hostname)) {
      issues.push({ path: `vhosts.${index}.hostname`, message: `${vhost.hostname} is listed twice` })
    }
    hostnames.add(vhost.hostname)
    if (!parseUpstream(vhost.upstream)) {
      issues.push({ path: `vhosts.${index}.upstream`, message: 'must be <address>:<port>' })
    }
  })
  const listeners = new Set<string>()
  state.forwards.forEach((forward, index) => {
    const key = `${forward.proto}/${forward.listenPort}`
    if (listeners.has(key))
      issues.push({ path: `forwards.${index}.listenPort`, message: `${key} is listed twice` })
    listeners.add(key)
    if (!parseUpstream(forward.upstream)) {
      issues.push({ path: `forwards.${index}.upstream`, message: 'must be <address>:<port>' })
    }
  })
  return issues
}
