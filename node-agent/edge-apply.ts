import type { EdgeChanges, EdgeStatePart, PartReceived } from '../src/agent-contract/edge-changes.ts'
import type { Applied, EdgeState, EntryFailure, Vhost } from '../src/agent-contract/v1.ts'
import { loadCaddyConfig } from './caddy-admin.ts'
import { type AgentVhost, renderCaddyConfig } from './caddy-config.ts'
import type { AgentConfig } from './config.ts'
import { applyFirewallRules, renderFirewallRules } from './firewall.ts'
import { Forwarders, type PreparedForwards } from './forwarders.ts'
import { AgentProblem } from './problem.ts'
import { type EdgeDelta, ServedState } from './served-state.ts'
import { StateFiles } from './state-file.ts'
import { StateParts } from './state-parts.ts'
import { forwardFailure, forwardKey, validateEdgeDelta, validateEdgeState } from './validate-state.ts'

// fetch's own message is only "fetch failed"; the reason (ECONNREFUSED, a timeout) is in its cause.
export function message(error: unknown): string {
  if (!(error instanceof Error)) return String(error)
  const cause = error.cause
  if (!(cause instanceof Error)) return error.message
  const code = 'code' in cause && typeof cause.code === 'string' ? cause.code : cause.message
  return `${error.message} (${code})`
}

const failureKey = (entry: EntryFailure): string => (entry.kind === 'forward' ? forwardKey(entry) : '')

function refused(issues: ReturnType<typeof validateEdgeState>, what: string): AgentProblem {
  return new AgentProblem(400, 'validation_failed', `invalid ${what}`, issues)
}

/**
 * What the node serves and every way to change it, one change at a time: a whole state (diffed against what is
 * served), the changes on a version, the parts of a whole state. A change touches Caddy only when vhosts
 * changed and the forwarders and the firewall only when forwards did; Caddy refusing the config (or not
 * answering) undoes it all and the previous version keeps serving.
 */
export class EdgeApplier {
  readonly #config: AgentConfig
  readonly #askUrl: string
  readonly #agentVhost: AgentVhost | null
  readonly #served: ServedState
  readonly #forwarders: Forwarders
  readonly #files: StateFiles
  readonly #parts = new StateParts()
  #forwardFailures: EntryFailure[] = []
  #firewall: Applied['firewall']
  /** The config Caddy runs, null until the agent loaded one. */
  #caddyConfig: unknown = null
  #chain: Promise<unknown> = Promise.resolve()

  constructor(config: AgentConfig, askUrl: string, agentVhost: AgentVhost | null) {
    this.#config = config
    this.#askUrl = askUrl
    this.#agentVhost = agentVhost
    this.#served = new ServedState(agentVhost?.hostname ?? null)
    this.#forwarders = new Forwarders(config.forwardHost)
    this.#files = new StateFiles(config.stateDir, config.nodeId)
    this.#firewall = { managed: config.manageFirewall, rules: renderFirewallRules([]) }
  }

  get appliedVersion(): number {
    return this.#served.version
  }

  /** Whether the agent has loaded a config into Caddy since it started. */
  get loaded(): boolean {
    return this.#caddyConfig !== null
  }

  get caddyConfig(): unknown {
    return this.#caddyConfig
  }

  /** The vhost served for a hostname, in O(1); a vhost that failed is not served. */
  vhost(hostname: string): Vhost | undefined {
    return this.#served.vhost(hostname.toLowerCase())
  }

  /** `POST /v2/edge/apply`: the whole state, applied as the changes between it and what is served. */
  apply(state: EdgeState): Promise<Applied> {
    const hostnames = new Set<string>()
    const issues = validateEdgeState(state, hostnames)
    if (issues.length > 0) return Promise.reject(refused(issues, 'edge state'))
    return this.serial(async () => {
      if (state.configVersion > this.appliedVersion)
        await this.#change(this.#served.diff(state, hostnames), state.configVersion, true)
      return this.#answer()
    })
  }

  /** `POST /v2/edge/changes`: see EdgeChangesSchema. */
  changes(changes: EdgeChanges): Promise<Applied> {
    const { baseVersion, configVersion, ...delta } = changes
    const issues = validateEdgeDelta(delta)
    if (issues.length > 0) return Promise.reject(refused(issues, 'edge changes'))
    return this.serial(async () => {
      if (configVersion > this.appliedVersion) {
        if (baseVersion !== this.appliedVersion) {
          throw new AgentProblem(
            409,
            'version_mismatch',
            `these changes apply on version ${baseVersion}; the agent serves version ${this.appliedVersion}`,
            undefined,
            { appliedVersion: this.appliedVersion },
          )
        }
        await this.#change(delta, configVersion, true)
      }
      return this.#answer()
    })
  }

  /** `POST /v2/edge/parts`: see EdgeStatePartSchema. */
  async part(part: EdgeStatePart): Promise<PartReceived> {
    const received = { configVersion: part.configVersion, parts: part.parts }
    if (part.configVersion <= this.appliedVersion)
      return {
        ...received,
        partsReceived: part.parts,
        applied: await this.serial(async () => this.#answer()),
      }
    const taken = this.#parts.take(part)
    if (taken.outcome !== 'complete')
      return { ...received, partsReceived: taken.partsReceived, applied: null }
    return { ...received, partsReceived: taken.partsReceived, applied: await this.apply(taken.state) }
  }

  /**
   * Serves a saved state (before the panel says anything) unless a config was loaded meanwhile; throws what
   * the load threw (a `proxy_unreachable` problem when Caddy's admin API does not answer).
   */
  restore(state: EdgeState): Promise<void> {
    const hostnames = new Set(state.vhosts.map((vhost) => vhost.hostname))
    return this.serial(async () => {
      if (!this.loaded) await this.#change(this.#served.diff(state, hostnames), state.configVersion, false)
    })
  }

  /** The saved state, or null; see StateFiles. */
  saved(): Promise<EdgeState | null> {
    return this.#files.load()
  }

  /** Runs one task after the ones before it (every change and renewal goes through here). */
  serial<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#chain.then(task, task)
    this.#chain = run.catch(() => undefined)
    return run
  }

  close(): Promise<void> {
    return this.#forwarders.close()
  }

  #answer(): Applied {
    return {
      appliedVersion: this.appliedVersion,
      firewall: this.#firewall,
      failed: [...this.#served.failedVhosts, ...this.#forwardFailures],
    }
  }

  // Forwards that could not bind are tried again at every change, as they were at every whole state.
  async #change(delta: EdgeDelta, version: number, save: boolean): Promise<void> {
    const vhostsChanged = delta.vhosts.length + delta.removeHostnames.length > 0 || !this.loaded
    const forwardsChanged =
      delta.forwards.length + delta.removeForwards.length + this.#forwardFailures.length > 0
    const baseVersion = this.appliedVersion
    const { undo } = this.#served.change(delta, version)
    let prepared: PreparedForwards | null = null
    let caddyConfig = this.#caddyConfig
    let forwardFailures = this.#forwardFailures
    let rules = this.#firewall.rules
    try {
      if (forwardsChanged) {
        const forwards = this.#served.forwards
        const unservable = forwards.flatMap((forward) => forwardFailure(forward) ?? [])
        const skipped = new Set(unservable.map(failureKey))
        prepared = await this.#forwarders.prepare(
          forwards.filter((forward) => !skipped.has(forwardKey(forward))),
        )
        forwardFailures = [...unservable, ...prepared.failed]
        for (const entry of prepared.failed) skipped.add(failureKey(entry))
        rules = renderFirewallRules(forwards.filter((forward) => !skipped.has(forwardKey(forward))))
        if (this.#config.manageFirewall) {
          await applyFirewallRules(this.#config.firewallCommand, rules).catch((error: unknown) => {
            throw new AgentProblem(422, 'refused', `the firewall refused the rules: ${message(error)}`)
          })
        }
      }
      if (vhostsChanged) {
        caddyConfig = renderCaddyConfig(this.#served, {
          ...this.#config,
          askUrl: this.#askUrl,
          agentVhost: this.#agentVhost,
        })
        await this.#load(caddyConfig)
      }
    } catch (error) {
      this.#served.change(undo, baseVersion)
      await prepared?.rollback()
      if (prepared && this.#config.manageFirewall) {
        await applyFirewallRules(this.#config.firewallCommand, this.#firewall.rules).catch(() => undefined)
      }
      throw error
    }
    await prepared?.commit()
    this.#forwardFailures = forwardFailures
    this.#firewall = { managed: this.#config.manageFirewall, rules }
    this.#caddyConfig = caddyConfig
    if (save) await this.#save(baseVersion, version, delta)
  }

  async #load(caddyConfig: unknown): Promise<void> {
    const loaded = await loadCaddyConfig(this.#config.caddyAdmin, caddyConfig).catch((error: unknown) => {
      throw new AgentProblem(502, 'proxy_unreachable', `Caddy's admin API did not answer: ${message(error)}`)
    })
    if (!loaded.accepted) throw new AgentProblem(422, 'refused', loaded.error)
  }

  // A state that is not saved would be lost at the next restart, until the panel sends it again: said loudly,
  // but the node serves it now, so the change stands. A journal grown larger than the snapshot is compacted
  // after the answer, before the next change.
  async #save(baseVersion: number, version: number, delta: EdgeDelta): Promise<void> {
    const failed = (error: unknown) =>
      console.error(`hosting-panel agent: could not save the edge state: ${message(error)}`)
    const compact = await this.#files
      .record(baseVersion, version, delta, () => this.#served.toState())
      .catch((error: unknown) => {
        failed(error)
        return false
      })
    if (compact) void this.serial(() => this.#files.snapshot(this.#served.toState())).catch(failed)
  }
}
