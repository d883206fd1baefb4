import { X509Certificate } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import {
  MAX_WINDOWS_PER_REPORT,
  MAX_WINDOWS_REPORT_BYTES,
  type RenewalWindow,
} from '../src/agent-contract/renewal-windows.ts'
import { ariCertId } from './ari-cert-id.ts'
import type { AcmeDirectory, RenewalInfo, SuggestedWindow } from './renewal-info.ts'

// Keeps, per hostname the node serves, the CA's suggested renewal window for the certificate served now, and
// reports each new or moved window to the panel. Asked at each certificate scan, but only for certificates whose
// Retry-After has passed (RFC 9773 §4.3: under a minute counts as a minute, over a day as a day, none as six
// hours), four at once at most: never per handshake. A temporary failure is asked again after 15 minutes,
// doubling up to six hours; a replaced or expired certificate is not asked about any more.

/** A certificate the node serves now, where Caddy stores it, and the CA that issued it. */
export interface ServedCertificate {
  hostname: string
  serial: string
  file: string
  directory: AcmeDirectory
}

export interface RenewalWindowsOptions {
  ask(directory: AcmeDirectory, certId: string): Promise<RenewalInfo>
  report(windows: readonly RenewalWindow[]): Promise<void>
  now?: () => number
}

interface Entry {
  serial: string
  certId: string | null
  notAfter: number
  window: SuggestedWindow | null
  /** The window the panel last took, as JSON. */
  reported: string | null
  nextAskAt: number
  failures: number
}

const ASK_AT_ONCE = 4
const READ_AT_ONCE = 8
const MINUTE = 60_000
const HOUR = 60 * MINUTE
const DEFAULT_AFTER_MS = 6 * HOUR
const FIRST_BACKOFF_MS = 15 * MINUTE

async function eachAtMost<T>(items: readonly T[], atOnce: number, work: (item: T) => Promise<void>) {
  const queue = [...items]
  const worker = async () => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) await work(item)
  }
  await Promise.all(Array.from({ length: Math.min(atOnce, queue.length) }, worker))
}

export class RenewalWindows {
  readonly #options: RenewalWindowsOptions
  readonly #now: () => number
  readonly #entries = new Map<string, Entry>()
  #running = false

  constructor(options: RenewalWindowsOptions) {
    this.#options = options
    this.#now = options.now ?? Date.now
  }

  /**
   * Asks the CA about each served certificate that is due, then reports what changed. A scan that starts while
   * the one before is still asking (a first round over many certificates) leaves it to that one.
   */
  async update(served: readonly ServedCertificate[]): Promise<void> {
    if (this.#running) return
    this.#running = true
    try {
      await this.#update(served)
    } finally {
      this.#running = false
    }
  }

  async #update(served: readonly ServedCertificate[]): Promise<void> {
    const current = new Map(served.map((certificate) => [certificate.hostname, certificate]))
    for (const [hostname, entry] of this.#entries)
      if (current.get(hostname)?.serial !== entry.serial) this.#entries.delete(hostname)
    await eachAtMost(
      served.filter((certificate) => !this.#entries.has(certificate.hostname)),
      READ_AT_ONCE,
      (certificate) => this.#read(certificate),
    )
    const now = this.#now()
    const due = served.filter((certificate) => {
      const entry = this.#entries.get(certificate.hostname)
      return entry?.certId && entry.nextAskAt <= now && entry.notAfter > now
    })
    const failures: string[] = []
    await eachAtMost(due, ASK_AT_ONCE, async (certificate) => {
      const entry = this.#entries.get(certificate.hostname)
      if (!entry?.certId) return
      const info = await this.#options.ask(certificate.directory, entry.certId)
      if (info.kind === 'failed') failures.push(`${certificate.hostname}: ${info.detail}`)
      this.#take(entry, info)
    })
    if (failures.length > 0)
      console.error(
        `hosting-panel agent: renewal info: ${failures.length} certificates not answered; the first: ${failures[0]}`,
      )
    await this.#reportChanged()
  }

  async #read(certificate: ServedCertificate): Promise<void> {
    try {
      const read = new X509Certificate(await readFile(certificate.file))
      if (read.serialNumber !== certificate.serial) return
      this.#entries.set(certificate.hostname, {
        serial: certificate.serial,
        certId: ariCertId(read),
        notAfter: Date.parse(read.validTo),
        window: null,
        reported: null,
        nextAskAt: 0,
        failures: 0,
      })
    } catch {
      // Gone or half written (Caddy is replacing it right now): the next scan reads it.
    }
  }

  #take(entry: Entry, info: RenewalInfo): void {
    const now = this.#now()
    if (info.kind === 'failed' && info.temporary) {
      entry.failures++
      entry.nextAskAt = now + Math.min(FIRST_BACKOFF_MS * 2 ** (entry.failures - 1), DEFAULT_AFTER_MS)
      return
    }
    entry.failures = 0
    if (info.kind !== 'window') {
      entry.nextAskAt = now + DEFAULT_AFTER_MS
      return
    }
    entry.window = info.window
    const after = info.retryAfterMs ?? DEFAULT_AFTER_MS
    entry.nextAskAt = now + Math.min(Math.max(after, MINUTE), 24 * HOUR)
  }

  async #reportChanged(): Promise<void> {
    const changed = [...this.#entries].flatMap(([hostname, entry]) =>
      entry.window && JSON.stringify(entry.window) !== entry.reported
        ? [{ entry, window: { hostname, serial: entry.serial, ...entry.window } }]
        : [],
    )
    while (changed.length > 0) {
      const batch: typeof changed = []
      let bytes = 20
      while (changed.length > 0 && batch.length < MAX_WINDOWS_PER_REPORT) {
        const size = JSON.stringify(changed[0]?.window).length + 1
        if (batch.length > 0 && bytes + size > MAX_WINDOWS_REPORT_BYTES) break
        bytes += size
        batch.push(...changed.splice(0, 1))
      }
      try {
        await this.#options.report(batch.map(({ window }) => window))
      } catch (error) {
        console.error(
          `hosting-panel agent: reporting ${batch.length + changed.length} renewal windows failed (again at the next scan): ${error instanceof Error ? error.message : String(error)}`,
        )
        return
      }
      for (const { entry } of batch) entry.reported = JSON.stringify(entry.window)
    }
  }
}
