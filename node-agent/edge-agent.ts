import { readFile } from 'node:fs/promises'
import type {
  Applied,
  CertificateObservation,
  EdgeState,
  EntryFailure,
  Health,
  SmokeResult,
  Vhost,
} from '../src/agent-contract/v1.ts'
import { mayIssue } from './ask-gate.ts'
import { caddyReachable, caddyVersion, loadCaddyConfig } from './caddy-admin.ts'
import { renderCaddyConfig } from './caddy-config.ts'
import { dropStoredCertificate, observeCertificate, type TlsTarget } from './certificates.ts'
import { type AgentConfig, splitHostPort } from './config.ts'
import { applyFirewallRules, renderFirewallRules } from './firewall.ts'
import { Forwarders } from './forwarders.ts'
import { reportCertificates } from './panel-report.ts'
import { AgentProblem } from './problem.ts'
import { smokeRequest } from './smoke.ts'
import { unservableEntries, validateEdgeState, withoutEntries } from './validate-state.ts'

export const AGENT_VERSION = '0.1.0'

// After Caddy asked the gate for a hostname (its first handshake, which obtains the certificate), when to look
// for the certificate it then serves; the first look that finds one reports it to the panel.
const ISSUANCE_CHECKS_MS = [2_000, 5_000, 15_000, 45_000, 120_000]

// fetch's own message is only "fetch failed"; the reason (ECONNREFUSED, a timeout) is in its cause.
function message(error: unknown): string {
  if (!(error instanceof Error)) return String(error)
  const cause = error.cause
  if (!(cause instanceof Error)) return error.message
  const code = 'code' in cause && typeof cause.code === 'string' ? cause.code : cause.message
  return `${error.message} (${code})`
}

/** The agent's state and the operations of contract v1, one apply or renewal at a time. */
export class EdgeAgent {
  readonly #config: AgentConfig
  readonly #askUrl: string
  readonly #forwarders: Forwarders
  /** The last state applied, and the entries of it that do not serve (left out of Caddy and the forwarders). */
  #applied: { state: EdgeState; caddyConfig: unknown; failed: EntryFailure[] } | null = null
  #firewall: Applied['firewall']
  #proxyVersion: string | null = null
  #chain: Promise<unknown> = Promise.resolve()
  readonly #watching = new Set<string>()

  constructor(config: AgentConfig, askUrl: string) {
    this.#config = config
    this.#askUrl = askUrl
    this.#forwarders = new Forwarders(config.forwardHost)
    this.#firewall = { managed: config.manageFirewall, rules: renderFirewallRules([]) }
  }

  get appliedVersion(): number {
    return this.#applied?.state.configVersion ?? 0
  }

  /** Whether the applied state has a vhost for the hostname. */
  serves(hostname: string): boolean {
    return this.#vhost(hostname) !== undefined
  }

  /** The ask gate: see `mayIssue`. */
  mayIssue(hostname: string): Promise<boolean> {
    return mayIssue(this.#vhost(hostname), hostname.toLowerCase())
  }

  /**
   * Called when the gate allowed a hostname: once Caddy serves its certificate, observe it and report it to the
   * panel, so `cert.issued` follows the first HTTPS request without anyone calling prime.
   */
  watchIssuance(hostname: string): void {
    const name = hostname.toLowerCase()
    if (this.#watching.has(name)) return
    this.#watching.add(name)
    void this.#observeWhenServed(name).finally(() => this.#watching.delete(name))
  }

  async #observeWhenServed(hostname: string): Promise<void> {
    for (const delay of ISSUANCE_CHECKS_MS) {
      await new Promise((resolve) => setTimeout(resolve, delay))
      if (!this.serves(hostname)) return
      try {
        await this.prime(hostname)
        return
      } catch {
        // Not served yet (issuance still running or failed): look again later.
      }
    }
    console.error(
      `Caddy served no certificate for ${hostname} within ${ISSUANCE_CHECKS_MS.at(-1)} ms of asking`,
    )
  }

  /**
   * `POST /v1/edge/apply`, per entry: an entry that cannot serve (an invalid hostname or upstream, a port that
   * cannot be bound) is answered in `failed` and left out, and the others apply. Only Caddy refusing the whole
   * config refuses the version.
   */
  apply(state: EdgeState): Promise<Applied> {
    const issues = validateEdgeState(state)
    if (issues.length > 0)
      return Promise.reject(new AgentProblem(400, 'validation_failed', 'invalid edge state', issues))
    return this.#serial(async () => {
      if (state.configVersion > this.appliedVersion) await this.#replace(state)
      return {
        appliedVersion: this.appliedVersion,
        firewall: this.#firewall,
        failed: this.#applied?.failed ?? [],
      }
    })
  }

  async #replace(state: EdgeState): Promise<void> {
    const unservable = unservableEntries(state)
    const valid = withoutEntries(state, unservable)
    const prepared = await this.#forwarders.prepare(valid.forwards)
    const serving = withoutEntries(valid, prepared.failed)
    const caddyConfig = renderCaddyConfig(serving, { ...this.#config, askUrl: this.#askUrl })
    const rules = renderFirewallRules(serving.forwards)
    try {
      if (this.#config.manageFirewall) {
        await applyFirewallRules(this.#config.firewallCommand, rules).catch((error: unknown) => {
          throw new AgentProblem(422, 'refused', `the firewall refused the rules: ${message(error)}`)
        })
      }
      const loaded = await loadCaddyConfig(this.#config.caddyAdminUrl, caddyConfig).catch(
        (error: unknown) => {
          throw new AgentProblem(
            502,
            'proxy_unreachable',
            `Caddy's admin API did not answer: ${message(error)}`,
          )
        },
      )
      if (!loaded.accepted) throw new AgentProblem(422, 'refused', loaded.error)
    } catch (error) {
      await prepared.rollback()
      if (this.#config.manageFirewall) {
        await applyFirewallRules(this.#config.firewallCommand, this.#firewall.rules).catch(() => undefined)
      }
      throw error
    }
    await prepared.commit()
    this.#applied = { state, caddyConfig, failed: [...unservable, ...prepared.failed] }
    this.#firewall = { managed: this.#config.manageFirewall, rules }
  }

  /** `POST /v1/certificates/prime`: observe what Caddy serves for the hostname and report it to the panel. */
  async prime(hostname: string): Promise<CertificateObservation> {
    const target = await this.#tlsTarget(hostname)
    const observation = await observeCertificate(hostname, target).catch((error: unknown) => {
      throw new AgentProblem(502, 'certificate_unavailable', message(error))
    })
    const { panelUrl, nodeId, secret } = this.#config
    if (panelUrl && nodeId) {
      await reportCertificates({ panelUrl, nodeId, secret }, [observation]).catch((error: unknown) =>
        console.error(`reporting the certificate of ${hostname} to the panel failed: ${message(error)}`),
      )
    }
    return observation
  }

  /** `POST /v1/certificates/renew`: drop the stored certificate, restart Caddy's cache, and prime again. */
  renew(hostname: string): Promise<CertificateObservation> {
    return this.#serial(async () => {
      const applied = this.#applied
      if (!applied || !this.serves(hostname)) throw this.#notServed(hostname)
      await dropStoredCertificate(this.#config.storageDir, hostname.toLowerCase())
      const reloaded = await loadCaddyConfig(this.#config.caddyAdminUrl, applied.caddyConfig, true).catch(
        (error: unknown) => {
          throw new AgentProblem(
            502,
            'proxy_unreachable',
            `Caddy's admin API did not answer: ${message(error)}`,
          )
        },
      )
      if (!reloaded.accepted) throw new AgentProblem(502, 'proxy_refused', reloaded.error)
      return this.prime(hostname)
    })
  }

  /** `POST /v1/smoke`. */
  async smoke(hostname: string): Promise<SmokeResult> {
    return smokeRequest(hostname, await this.#tlsTarget(hostname))
  }

  /** `POST /v1/health`. */
  async health(): Promise<Health> {
    const reachable = await caddyReachable(this.#config.caddyAdminUrl)
    this.#proxyVersion ??= await caddyVersion(this.#config.caddyBinary)
    return {
      agentVersion: AGENT_VERSION,
      contract: 'v1',
      appliedVersion: this.appliedVersion,
      proxy: { name: 'caddy', version: this.#proxyVersion, reachable },
    }
  }

  /** Stops the forwarders. */
  close(): Promise<void> {
    return this.#forwarders.close()
  }

  // A vhost that failed is not served, so it is none of the agent's.
  #vhost(hostname: string): Vhost | undefined {
    const name = hostname.toLowerCase()
    const failed = this.#applied?.failed.some((entry) => entry.kind === 'vhost' && entry.hostname === name)
    return failed ? undefined : this.#applied?.state.vhosts.find((vhost) => vhost.hostname === name)
  }

  async #tlsTarget(hostname: string): Promise<TlsTarget> {
    const vhost = this.#vhost(hostname)
    if (!vhost) throw this.#notServed(hostname)
    const { host, port } = splitHostPort(this.#config.httpsListen)
    const local = host === '' || host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host
    const root = vhost.issuer === 'pebble' ? this.#config.pebbleCaRoot : null
    return { host: local, port, ca: root ? await readFile(root, 'utf8') : null }
  }

  #notServed(hostname: string): AgentProblem {
    return new AgentProblem(404, 'not_found', `${hostname} is not a vhost of the applied edge state`)
  }

  #serial<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#chain.then(task, task)
    this.#chain = run.catch(() => undefined)
    return run
  }
}
