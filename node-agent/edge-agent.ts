import { readFile } from 'node:fs/promises'
import type { RunCheckRequest } from '../src/agent-contract/checks.ts'
import type { EdgeChanges, EdgeStatePart, PartReceived } from '../src/agent-contract/edge-changes.ts'
import {
  type Applied,
  type CertificateObservation,
  CONTRACT_VERSION,
  type EdgeState,
  type Health,
  type SmokeResult,
  type Vhost,
} from '../src/agent-contract/v1.ts'
import { mayIssue } from './ask-gate.ts'
import { caddyReachable, caddyVersion, loadCaddyConfig } from './caddy-admin.ts'
import { type AgentVhost, tlsLogFile } from './caddy-config.ts'
import { CertificateAttemptWatch } from './certificate-attempt-watch.ts'
import { type StoredCertificate, scanCertificates, storedCertificates } from './certificate-scan.ts'
import { dropStoredCertificate, observeCertificate, type TlsTarget } from './certificates.ts'
import type { OwnEndpoint } from './checks/destination.ts'
import { NodeChecks } from './checks/runner.ts'
import { type AgentConfig, splitHostPort } from './config.ts'
import { EdgeApplier, message } from './edge-apply.ts'
import {
  fetchCurrentEdgeState,
  type PanelTarget,
  reportCertificateAttempts,
  reportCertificates,
  reportRenewalWindows,
} from './panel-report.ts'
import { AgentProblem } from './problem.ts'
import { type AcmeDirectory, RenewalInfoClient } from './renewal-info.ts'
import { RenewalWindows, type ServedCertificate } from './renewal-windows.ts'
import { smokeRequest } from './smoke.ts'

export const AGENT_VERSION = '0.5.1'

// After Caddy asked the gate for a hostname (its first handshake, which obtains the certificate), when to look
// for the certificate it then serves; the first look that finds one reports it to the panel.
const ISSUANCE_CHECKS_MS = [2_000, 5_000, 15_000, 45_000, 120_000]
// Restoring the saved state waits this long for Caddy's admin API before serving without it; it keeps trying
// in the background afterwards.
const RESTORE_WAITS_MS = [250, 500, 1_000, 2_000, 4_000]
const RESTORE_RETRY_MS = 10_000
// Asking the panel for the current state: again after 5 s, doubling up to 5 minutes, until it answers.
const CATCH_UP_FIRST_RETRY_MS = 5_000
const CATCH_UP_MAX_RETRY_MS = 300_000
// Nothing applied yet: what the agent serves when it has only its own vhost.
const NOTHING: EdgeState = { configVersion: 0, vhosts: [], forwards: [] }

/** Waits, without keeping the process alive for it. */
function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref())
}

/** The agent's state and the operations of contract v2, one apply or renewal at a time. */
export class EdgeAgent {
  readonly #config: AgentConfig
  readonly #agentVhost: AgentVhost | null
  readonly #edge: EdgeApplier
  readonly #checks: NodeChecks
  #proxyVersion: string | null = null
  #closed = false
  readonly #watching = new Set<string>()
  /** The serial last reported to the panel per hostname (by a prime or a scan). */
  readonly #reported = new Map<string, string>()
  /** The CA's suggested renewal windows of the certificates served now (ACME ARI), asked at each scan. */
  readonly #windows: RenewalWindows

  /**
   * `apiUpstream`: where Caddy reaches the contract API for the agent's own vhost (`127.0.0.1:<port>`);
   * `own`: the agent's listeners and Caddy's admin API on TCP, which the node's checks never reach.
   */
  constructor(config: AgentConfig, askUrl: string, apiUpstream: string, own: readonly OwnEndpoint[]) {
    this.#config = config
    this.#agentVhost = config.agentHostname
      ? { hostname: config.agentHostname, issuer: config.agentIssuer, upstream: apiUpstream }
      : null
    this.#edge = new EdgeApplier(config, askUrl, this.#agentVhost)
    this.#checks = new NodeChecks(this.#panel(), config.checkResolver, own)
    this.#windows = new RenewalWindows({
      ask: new RenewalInfoClient().ask,
      report: async (windows) => {
        const target = this.#panel()
        if (target) await reportRenewalWindows(target, windows)
      },
    })
  }

  get appliedVersion(): number {
    return this.#edge.appliedVersion
  }

  /** Whether the applied state has a vhost for the hostname. */
  serves(hostname: string): boolean {
    return this.#vhost(hostname) !== undefined
  }

  /** The ask gate: see `mayIssue`; the agent's own hostname always may. */
  mayIssue(hostname: string): Promise<boolean> {
    const name = hostname.toLowerCase()
    if (name === this.#agentVhost?.hostname) return Promise.resolve(true)
    return mayIssue(this.#vhost(name), name)
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
   * `POST /v2/edge/apply`, per entry: an entry that cannot serve (an invalid hostname or upstream, a port that
   * cannot be bound) is answered in `failed` and left out, and the others apply. Only Caddy refusing the whole
   * config refuses the version. Only what differs from the served state is changed.
   */
  apply(state: EdgeState): Promise<Applied> {
    return this.#edge.apply(state)
  }

  /** `POST /v2/edge/changes`. */
  changes(changes: EdgeChanges): Promise<Applied> {
    return this.#edge.changes(changes)
  }

  /** `POST /v2/edge/parts`. */
  part(part: EdgeStatePart): Promise<PartReceived> {
    return this.#edge.part(part)
  }

  /**
   * Before the agent serves: applies the state saved by the last apply (forwards, vhosts and the ask gate come
   * back with no call from the panel) or, with none, the agent's own vhost alone. When Caddy's admin API does
   * not answer within about 8 s, the agent serves anyway and keeps trying every 10 s until it loads or the
   * panel pushes a state.
   */
  async restore(): Promise<void> {
    const saved = await this.#edge.saved()
    const state = saved ?? (this.#agentVhost ? NOTHING : null)
    if (!state) return
    for (const wait of [0, ...RESTORE_WAITS_MS]) {
      await sleep(wait)
      if ((await this.#restoreOnce(state)) !== 'proxy_unreachable') return
    }
    void this.#restoreLater(state)
  }

  async #restoreLater(state: EdgeState): Promise<void> {
    while (!this.#closed && (await this.#restoreOnce(state)) === 'proxy_unreachable')
      await sleep(RESTORE_RETRY_MS)
  }

  async #restoreOnce(state: EdgeState): Promise<'done' | 'proxy_unreachable'> {
    try {
      // Anything applied meanwhile is newer than what was saved.
      await this.#edge.restore(state)
      return 'done'
    } catch (error) {
      if (error instanceof AgentProblem && error.code === 'proxy_unreachable') return 'proxy_unreachable'
      console.error(`hosting-panel agent: could not restore the saved edge state: ${message(error)}`)
      return 'done'
    }
  }

  /**
   * After start: asks the panel for the node's current edge state (a node that missed pushes catches up by
   * itself) and applies it when it is newer, asking again until the panel answers.
   */
  async catchUp(): Promise<void> {
    const target = this.#panel()
    if (!target) return
    for (
      let retry = CATCH_UP_FIRST_RETRY_MS;
      !this.#closed;
      retry = Math.min(retry * 2, CATCH_UP_MAX_RETRY_MS)
    ) {
      try {
        const state = await fetchCurrentEdgeState(target)
        if (state) await this.apply(state)
        return
      } catch (error) {
        // A state the agent refuses will not change by asking again; the panel's own push reports it.
        if (error instanceof AgentProblem && error.status < 500) {
          console.error(`hosting-panel agent: refused the panel's current edge state: ${error.message}`)
          return
        }
        console.error(
          `hosting-panel agent: catching up with the panel failed (${message(error)}); again in ${retry / 1000} s`,
        )
      }
      await sleep(retry)
    }
  }

  /** Makes Caddy obtain (or load) the certificate of the agent's own hostname now, and logs the outcome. */
  async primeOwnHostname(): Promise<void> {
    const own = this.#agentVhost
    if (!own) return
    try {
      const served = await observeCertificate(own.hostname, await this.#tlsTarget(own.hostname))
      console.log(
        `hosting-panel agent: https://${own.hostname} serves a certificate from ${served.issuer} until ${served.notAfter}`,
      )
    } catch (error) {
      console.error(`hosting-panel agent: no certificate for ${own.hostname} yet: ${message(error)}`)
    }
  }

  /**
   * Reports each certificate Caddy obtained or renewed by itself since the last report (see certificate-scan.ts),
   * then the CA's renewal windows of the certificates the panel knows (renewal-windows.ts); answers the
   * certificates it reported.
   */
  async scanCertificates(): Promise<CertificateObservation[]> {
    const target = this.#panel()
    if (!target || !this.#edge.loaded) return []
    const serves = (hostname: string) => this.#edge.vhost(hostname) !== undefined
    const stored = await storedCertificates(this.#config.storageDir, serves)
    const reported = await scanCertificates({
      stored,
      serves,
      reported: this.#reported,
      observe: async (hostname) => observeCertificate(hostname, await this.#tlsTarget(hostname)),
      report: (observations) => reportCertificates(target, observations),
    })
    await this.#windows.update(await this.#servedCertificates(stored))
    return reported
  }

  /** The certificates the panel was told are served, with their files and the CA of their vhost's issuer. */
  async #servedCertificates(
    stored: ReadonlyMap<string, readonly StoredCertificate[]>,
  ): Promise<ServedCertificate[]> {
    const pebbleRoot = this.#config.pebbleCaRoot
    const directories: Record<Vhost['issuer'], AcmeDirectory> = {
      pebble: {
        url: this.#config.acmeDirectories.pebble,
        ca: pebbleRoot ? await readFile(pebbleRoot, 'utf8').catch(() => null) : null,
      },
      letsencrypt: { url: this.#config.acmeDirectories.letsencrypt, ca: null },
    }
    return [...this.#reported].flatMap(([hostname, serial]) => {
      const vhost = this.#vhost(hostname)
      const file = stored.get(hostname)?.find((certificate) => certificate.serial === serial)?.file
      return vhost && file ? [{ hostname, serial, file, directory: directories[vhost.issuer] }] : []
    })
  }

  /**
   * Follows Caddy's own log of certificate issuance and reports each served hostname's newest outcome to the
   * panel (certificate-attempt-watch.ts); null without a panel.
   */
  attemptWatch(): CertificateAttemptWatch | null {
    const target = this.#panel()
    if (!target) return null
    return new CertificateAttemptWatch({
      logFile: tlsLogFile(this.#config.stateDir),
      serves: (hostname) => this.serves(hostname),
      report: (attempts) => reportCertificateAttempts(target, attempts),
    })
  }

  /** `POST /v2/certificates/prime`: observe what Caddy serves for the hostname and report it to the panel. */
  async prime(hostname: string): Promise<CertificateObservation> {
    const target = await this.#tlsTarget(hostname)
    const observation = await observeCertificate(hostname, target).catch((error: unknown) => {
      throw new AgentProblem(502, 'certificate_unavailable', message(error))
    })
    const panel = this.#panel()
    if (panel) {
      await reportCertificates(panel, [observation]).then(
        () => this.#reported.set(observation.hostname, observation.serial),
        (error: unknown) =>
          console.error(`reporting the certificate of ${hostname} to the panel failed: ${message(error)}`),
      )
    }
    return observation
  }

  /** `POST /v2/certificates/renew`: drop the stored certificate, restart Caddy's cache, and prime again. */
  renew(hostname: string): Promise<CertificateObservation> {
    return this.#edge.serial(async () => {
      if (!this.#edge.loaded || !this.serves(hostname)) throw this.#notServed(hostname)
      await dropStoredCertificate(this.#config.storageDir, hostname.toLowerCase())
      const reloaded = await loadCaddyConfig(this.#config.caddyAdmin, this.#edge.caddyConfig, true).catch(
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

  /** `POST /v2/smoke`. */
  async smoke(hostname: string): Promise<SmokeResult> {
    return smokeRequest(hostname, await this.#tlsTarget(hostname))
  }

  /** `POST /v2/checks/run`: see NodeChecks. */
  runCheck(request: RunCheckRequest): { accepted: true } {
    return this.#checks.take(request)
  }

  /** `POST /v2/health`. */
  async health(): Promise<Health> {
    const reachable = await caddyReachable(this.#config.caddyAdmin)
    this.#proxyVersion ??= await caddyVersion(this.#config.caddyBinary)
    return {
      agentVersion: AGENT_VERSION,
      contract: CONTRACT_VERSION,
      appliedVersion: this.appliedVersion,
      proxy: { name: 'caddy', version: this.#proxyVersion, reachable },
    }
  }

  /** Stops the forwarders and the background work. */
  close(): Promise<void> {
    this.#closed = true
    return this.#edge.close()
  }

  #panel(): PanelTarget | null {
    const { panelUrl, nodeId, secret } = this.#config
    return panelUrl && nodeId ? { panelUrl, nodeId, secret } : null
  }

  // A vhost that failed is not served, so it is none of the agent's.
  #vhost(hostname: string): Vhost | undefined {
    return this.#edge.vhost(hostname)
  }

  async #tlsTarget(hostname: string): Promise<TlsTarget> {
    const own = this.#agentVhost
    const vhost = own?.hostname === hostname.toLowerCase() ? own : this.#vhost(hostname)
    if (!vhost) throw this.#notServed(hostname)
    const { host, port } = splitHostPort(this.#config.httpsListen)
    const local = host === '' || host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host
    const root = vhost.issuer === 'pebble' ? this.#config.pebbleCaRoot : null
    return { host: local, port, ca: root ? await readFile(root, 'utf8') : null }
  }

  #notServed(hostname: string): AgentProblem {
    return new AgentProblem(404, 'not_found', `${hostname} is not a vhost of the applied edge state`)
  }
}
