import type { ForwardKey } from '../src/agent-contract/edge-changes.ts'
import type { EdgeState, EntryFailure, Forward, Vhost } from '../src/agent-contract/v1.ts'
import { dialAddress, parseUpstream } from './upstream.ts'
import { forwardKey, vhostFailure } from './validate-state.ts'

/** What changed between two versions: entries set (added or replaced) and entries removed. */
export interface EdgeDelta {
  vhosts: Vhost[]
  removeHostnames: string[]
  forwards: Forward[]
  removeForwards: ForwardKey[]
}

const sameVhost = (a: Vhost, b: Vhost): boolean =>
  a.upstream === b.upstream && a.issuer === b.issuer && a.issuable === b.issuable && a.askUrl === b.askUrl

/** Inserts into / removes from an array kept sorted (byte order, as Caddy sorts a large host list). */
function sortedIndex(sorted: readonly string[], name: string): number {
  let low = 0
  let high = sorted.length
  while (low < high) {
    const middle = (low + high) >>> 1
    if ((sorted[middle] as string) < name) low = middle + 1
    else high = middle
  }
  return low
}

/**
 * The desired edge state the agent serves, indexed so that every per-hostname question is O(1) and a change
 * costs what it changes: the vhosts by hostname, the unservable ones with their reason, and the servable ones
 * grouped by the upstream Caddy dials (each group's hostnames kept sorted, which is the order Caddy searches a
 * large host list in) and by issuer. The agent's own hostname is reserved: a vhost of that name is kept but
 * neither routed nor given a policy.
 */
export class ServedState {
  version = 0
  readonly #ownHostname: string | null
  readonly #vhosts = new Map<string, Vhost>()
  readonly #failed = new Map<string, EntryFailure>()
  readonly #groups = new Map<string, string[]>()
  readonly #issuers = new Map<Vhost['issuer'], Set<string>>()
  readonly #forwards = new Map<string, Forward>()
  /** Hostnames added to / removed from each group during one change, settled at its end. */
  readonly #added = new Map<string, Set<string>>()
  readonly #removed = new Map<string, Set<string>>()

  constructor(ownHostname: string | null) {
    this.#ownHostname = ownHostname
  }

  /** The vhost served for a hostname (lowercase), or undefined when there is none or it failed. */
  vhost(hostname: string): Vhost | undefined {
    return this.#failed.has(hostname) ? undefined : this.#vhosts.get(hostname)
  }

  get size(): number {
    return this.#vhosts.size
  }

  /** Upstream dial address → its hostnames, sorted; in the order the groups first appeared. */
  get groups(): ReadonlyMap<string, readonly string[]> {
    return this.#groups
  }

  get issuers(): ReadonlyMap<Vhost['issuer'], ReadonlySet<string>> {
    return this.#issuers
  }

  get forwards(): Forward[] {
    return [...this.#forwards.values()]
  }

  /** The vhosts that cannot serve, with their reason. */
  get failedVhosts(): EntryFailure[] {
    return [...this.#failed.values()]
  }

  /** The whole desired state, as the panel sent it (failed entries included). */
  toState(): EdgeState {
    return { configVersion: this.version, vhosts: [...this.#vhosts.values()], forwards: this.forwards }
  }

  /**
   * What turns the served state into `state`, touching nothing: one lookup per vhost of the state, and, only
   * when some served hostname is missing from it, one per served vhost in `hostnames` (the state's hostnames).
   */
  diff(state: EdgeState, hostnames: ReadonlySet<string>): EdgeDelta {
    const vhosts: Vhost[] = []
    let kept = 0
    for (const vhost of state.vhosts) {
      const served = this.#vhosts.get(vhost.hostname)
      if (served) kept++
      if (!served || !sameVhost(served, vhost)) vhosts.push(vhost)
    }
    const removeHostnames =
      kept < this.#vhosts.size ? [...this.#vhosts.keys()].filter((name) => !hostnames.has(name)) : []
    const forwards = state.forwards.filter((forward) => {
      const served = this.#forwards.get(forwardKey(forward))
      return served?.upstream !== forward.upstream
    })
    const wantedForwards = new Set(state.forwards.map(forwardKey))
    const removeForwards = [...this.#forwards.values()]
      .filter((forward) => !wantedForwards.has(forwardKey(forward)))
      .map(({ listenPort, proto }) => ({ listenPort, proto }))
    return { vhosts, removeHostnames, forwards, removeForwards }
  }

  /** Applies a delta now; answers the delta that undoes it. */
  change(delta: EdgeDelta, version: number): { undo: EdgeDelta; version: number } {
    const undo: EdgeDelta = { vhosts: [], removeHostnames: [], forwards: [], removeForwards: [] }
    const touch = (hostname: string) => {
      const previous = this.#vhosts.get(hostname)
      if (previous) {
        undo.vhosts.push(previous)
        this.#unindex(previous)
      } else undo.removeHostnames.push(hostname)
    }
    for (const hostname of delta.removeHostnames) {
      if (!this.#vhosts.has(hostname)) continue
      touch(hostname)
      this.#vhosts.delete(hostname)
    }
    for (const vhost of delta.vhosts) {
      touch(vhost.hostname)
      this.#vhosts.set(vhost.hostname, vhost)
      this.#index(vhost)
    }
    for (const key of delta.removeForwards) {
      const previous = this.#forwards.get(forwardKey(key))
      if (!previous) continue
      undo.forwards.push(previous)
      this.#forwards.delete(forwardKey(key))
    }
    for (const forward of delta.forwards) {
      const previous = this.#forwards.get(forwardKey(forward))
      if (previous) undo.forwards.push(previous)
      else undo.removeForwards.push({ listenPort: forward.listenPort, proto: forward.proto })
      this.#forwards.set(forwardKey(forward), forward)
    }
    this.#settleGroups()
    const previousVersion = this.version
    this.version = version
    return { undo, version: previousVersion }
  }

  #index(vhost: Vhost): void {
    const { hostname } = vhost
    const failure = vhostFailure(vhost)
    if (failure) {
      this.#failed.set(hostname, failure)
      return
    }
    if (hostname === this.#ownHostname) return
    const dial = dialAddress(parseUpstream(vhost.upstream) as NonNullable<ReturnType<typeof parseUpstream>>)
    // Removed and added back within one change: it simply stays in its group.
    if (!this.#removed.get(dial)?.delete(hostname)) {
      const added = this.#added.get(dial) ?? new Set()
      if (added.size === 0) this.#added.set(dial, added)
      added.add(hostname)
    }
    this.#indexIssuer(vhost)
  }

  #indexIssuer(vhost: Vhost): void {
    const issued = this.#issuers.get(vhost.issuer) ?? new Set()
    if (issued.size === 0) this.#issuers.set(vhost.issuer, issued)
    issued.add(vhost.hostname)
  }

  // A few names go in or out by binary search; many (a whole state) by one filter and one sort.
  #settleGroups(): void {
    const BULK = 64
    for (const [dial, removed] of this.#removed) {
      const group = this.#groups.get(dial) ?? []
      if (removed.size > BULK)
        this.#groups.set(
          dial,
          group.filter((name) => !removed.has(name)),
        )
      else for (const name of removed) group.splice(sortedIndex(group, name), 1)
    }
    for (const [dial, added] of this.#added) {
      const group = this.#groups.get(dial) ?? []
      if (added.size > BULK) this.#groups.set(dial, group.concat([...added]).sort())
      else {
        for (const name of added) group.splice(sortedIndex(group, name), 0, name)
        this.#groups.set(dial, group)
      }
    }
    for (const dial of [...this.#removed.keys(), ...this.#added.keys()])
      if (this.#groups.get(dial)?.length === 0) this.#groups.delete(dial)
    this.#removed.clear()
    this.#added.clear()
  }

  #unindex(vhost: Vhost): void {
    const { hostname } = vhost
    if (this.#failed.delete(hostname) || hostname === this.#ownHostname) return
    const upstream = parseUpstream(vhost.upstream)
    const dial = upstream ? dialAddress(upstream) : ''
    if (!this.#added.get(dial)?.delete(hostname)) {
      const removed = this.#removed.get(dial) ?? new Set()
      if (removed.size === 0) this.#removed.set(dial, removed)
      removed.add(hostname)
    }
    const issued = this.#issuers.get(vhost.issuer)
    issued?.delete(hostname)
    if (issued?.size === 0) this.#issuers.delete(vhost.issuer)
  }
}
