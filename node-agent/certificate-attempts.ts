import type { CertificateAttempt } from '../src/agent-contract/certificate-attempts.ts'
import { attemptError, problemInText } from './acme-problem.ts'
import type { TlsLogEvent } from './caddy-tls-log.ts'

// certmagic 0.17.2 (Caddy 2.6.2) gives an on-demand obtain 180 s from the handshake that asked for it
// (handshake.go), retries inside that window by its backoff (async.go: 1 min, then 2 min, …) and then stops
// until the next handshake for the name. A retry Caddy logs counts as a next attempt only inside that window.
const ON_DEMAND_WINDOW_MS = 180_000

interface OpenAttempt {
  /**
   * The CA's refusal in this attempt that names the cause: HTTP-01's when there is one (Caddy tries HTTP-01 and
   * TLS-ALPN-01 in either order; HTTP-01 reaches the name the way visitors do), else the first.
   */
  refusal: { http01: boolean; problemType: string | null; detail: string } | null
}

/**
 * Folds Caddy's tls log events into the newest outcome per hostname the agent serves, and keeps those not yet
 * reported. Every map holds at most one entry per served hostname.
 */
export class CertificateAttempts {
  readonly #serves: (hostname: string) => boolean
  readonly #open = new Map<string, OpenAttempt>()
  readonly #onDemandUntil = new Map<string, number>()
  /** The last failure per hostname, which a later "will retry" line completes with its next attempt. */
  readonly #lastFailure = new Map<string, CertificateAttempt>()
  readonly #pending = new Map<string, CertificateAttempt>()

  constructor(serves: (hostname: string) => boolean) {
    this.#serves = serves
  }

  get pendingCount(): number {
    return this.#pending.size
  }

  take(event: TlsLogEvent): void {
    const { hostname } = event
    if (!this.#serves(hostname)) return
    switch (event.type) {
      case 'on_demand':
        this.#onDemandUntil.set(hostname, event.at + ON_DEMAND_WINDOW_MS)
        return
      case 'attempt':
        this.#open.set(hostname, { refusal: null })
        return
      case 'challenge_failed': {
        const open = this.#open.get(hostname) ?? { refusal: null }
        const http01 = event.challengeType === 'http-01'
        if (!open.refusal || (http01 && !open.refusal.http01))
          open.refusal = { http01, problemType: event.problemType, detail: event.detail }
        this.#open.set(hostname, open)
        return
      }
      case 'failed':
        this.#failed(hostname, event.at, event.error)
        return
      case 'retry':
        this.#retry(hostname, event.at, event.retryInMs)
        return
      case 'obtained':
        this.#open.delete(hostname)
        this.#onDemandUntil.delete(hostname)
        this.#lastFailure.delete(hostname)
        this.#queue({ hostname, at: iso(event.at), outcome: 'obtained', error: null, nextAttemptAt: null })
    }
  }

  /** Takes up to `max` outcomes to report whose JSON stays under `maxBytes`, oldest hostname first. */
  drain(max: number, maxBytes = Number.POSITIVE_INFINITY): CertificateAttempt[] {
    const batch: CertificateAttempt[] = []
    let bytes = 0
    for (const attempt of this.#pending.values()) {
      const size = Buffer.byteLength(JSON.stringify(attempt)) + 1
      if (batch.length === max || (batch.length > 0 && bytes + size > maxBytes)) break
      batch.push(attempt)
      bytes += size
    }
    for (const attempt of batch) this.#pending.delete(attempt.hostname)
    return batch
  }

  /** Queues a batch the panel did not take again, unless a newer outcome for the hostname came meanwhile. */
  putBack(batch: readonly CertificateAttempt[]): void {
    for (const attempt of batch) if (!this.#pending.has(attempt.hostname)) this.#queue(attempt)
  }

  /** Forgets hostnames the agent no longer serves. */
  prune(): void {
    for (const map of [this.#open, this.#onDemandUntil, this.#lastFailure, this.#pending])
      for (const hostname of map.keys()) if (!this.#serves(hostname)) map.delete(hostname)
  }

  #failed(hostname: string, at: number, error: string): void {
    // The CA's own refusal of a challenge says more than Caddy's summary ("no solvers available for remaining
    // challenges"); without one, the problem inside Caddy's text, or its text as it is.
    const refusal = this.#open.get(hostname)?.refusal ?? problemInText(error)
    this.#open.delete(hostname)
    const failure: CertificateAttempt = {
      hostname,
      at: iso(at),
      outcome: 'failed',
      error: refusal ? attemptError(refusal.problemType, refusal.detail) : attemptError(null, error),
      nextAttemptAt: null,
    }
    this.#lastFailure.set(hostname, failure)
    this.#queue(failure)
  }

  #retry(hostname: string, at: number, retryInMs: number | null): void {
    const failure = this.#lastFailure.get(hostname)
    if (!failure) return
    const next = retryInMs === null ? null : at + retryInMs
    const until = this.#onDemandUntil.get(hostname)
    const honest = next !== null && (until === undefined || next < until)
    if (!honest) this.#onDemandUntil.delete(hostname)
    this.#queue({ ...failure, nextAttemptAt: honest ? iso(next) : null })
  }

  #queue(attempt: CertificateAttempt): void {
    this.#pending.delete(attempt.hostname)
    this.#pending.set(attempt.hostname, attempt)
    if (attempt.outcome === 'failed') this.#lastFailure.set(attempt.hostname, attempt)
  }
}

const iso = (ms: number) => new Date(ms).toISOString()
