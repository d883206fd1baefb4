import {
  type CertificateAttempt,
  MAX_ATTEMPTS_PER_REPORT,
  MAX_ATTEMPTS_REPORT_BYTES,
} from '../src/agent-contract/certificate-attempts.ts'
import { parseTlsLogLine } from './caddy-tls-log.ts'
import { CertificateAttempts } from './certificate-attempts.ts'
import { LogTail } from './log-tail.ts'
import { PanelRefusal } from './panel-report.ts'

// Reads Caddy's tls log every 2 s and reports the new outcomes, 500 hostnames (60,000 bytes) a call at most, so the panel gets
// a few calls per busy minute, never one per log line. A batch the panel could not take (down, 5xx) is queued
// again and the reports pause for 30 s; one it refuses for good (4xx: a panel before this callback answers 404)
// is dropped, and the next outcome of each hostname is reported as usual.

const READ_EVERY_MS = 2_000
const PAUSE_AFTER_FAILURE_MS = 30_000

export interface AttemptWatchOptions {
  logFile: string
  serves(hostname: string): boolean
  report(attempts: readonly CertificateAttempt[]): Promise<void>
}

export class CertificateAttemptWatch {
  readonly #tail: LogTail
  readonly #attempts: CertificateAttempts
  readonly #report: AttemptWatchOptions['report']
  #timer: NodeJS.Timeout | undefined
  #pausedUntil = 0
  #running: Promise<void> = Promise.resolve()

  constructor(options: AttemptWatchOptions) {
    this.#tail = new LogTail(options.logFile)
    this.#attempts = new CertificateAttempts(options.serves)
    this.#report = options.report
  }

  start(): void {
    this.#timer = setInterval(() => void this.tick(), READ_EVERY_MS).unref()
    void this.tick()
  }

  close(): Promise<void> {
    clearInterval(this.#timer)
    return this.#running
  }

  /** One read and report, after the one before it. */
  tick(): Promise<void> {
    this.#running = this.#running
      .then(() => this.#once())
      .catch((error: unknown) => {
        console.error(`hosting-panel agent: certificate attempts: ${message(error)}`)
      })
    return this.#running
  }

  async #once(): Promise<void> {
    for (const line of await this.#tail.read()) {
      const event = parseTlsLogLine(line)
      if (event) this.#attempts.take(event)
    }
    this.#attempts.prune()
    if (Date.now() < this.#pausedUntil) return
    while (this.#attempts.pendingCount > 0) {
      const batch = this.#attempts.drain(MAX_ATTEMPTS_PER_REPORT, MAX_ATTEMPTS_REPORT_BYTES)
      try {
        await this.#report(batch)
      } catch (error) {
        if (error instanceof PanelRefusal && error.status < 500) {
          console.error(
            `hosting-panel agent: the panel refused ${batch.length} certificate attempts: ${message(error)}`,
          )
          continue
        }
        this.#attempts.putBack(batch)
        this.#pausedUntil = Date.now() + PAUSE_AFTER_FAILURE_MS
        console.error(`hosting-panel agent: reporting certificate attempts failed: ${message(error)}`)
        return
      }
    }
  }
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error))
