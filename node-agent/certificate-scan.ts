import { X509Certificate } from 'node:crypto'
import { readdir, readFile } from 'node:fs/promises'
import path from 'node:path'
import type { CertificateObservation } from '../src/agent-contract/v1.ts'

// Caddy obtains and renews certificates by itself (on demand, then about a month before expiry) and tells
// no one. The scan finds every certificate in Caddy's storage that differs from the one last reported for its
// hostname, reads what Caddy actually serves for it and reports that, so the panel follows each renewal.

const REPORT_BATCH = 500
const HANDSHAKES_AT_ONCE = 8

/** A certificate in Caddy's storage: its serial and its file. */
export interface StoredCertificate {
  serial: string
  file: string
}

/** What one scan works with. */
export interface ScanInput {
  /** The certificates Caddy stores per hostname the agent serves (storedCertificates). */
  stored: ReadonlyMap<string, readonly StoredCertificate[]>
  /** Whether the panel wants to know about a hostname's certificate (a vhost the agent serves), in O(1). */
  serves(hostname: string): boolean
  /** The serial last reported per hostname; the scan updates it after each report the panel accepted. */
  reported: Map<string, string>
  /** A TLS handshake with Caddy for the hostname: what it serves (it never obtains one: it holds one). */
  observe(hostname: string): Promise<CertificateObservation>
  report(observations: readonly CertificateObservation[]): Promise<void>
}

/** The certificates Caddy stores per hostname, whichever issuer's folder holds them (certmagic's layout). */
export async function storedCertificates(
  storageDir: string,
  serves: (hostname: string) => boolean,
): Promise<Map<string, StoredCertificate[]>> {
  const root = path.join(storageDir, 'certificates')
  const stored = new Map<string, StoredCertificate[]>()
  for (const issuer of await readdir(root).catch(() => [])) {
    for (const hostname of await readdir(path.join(root, issuer)).catch(() => [])) {
      if (!serves(hostname)) continue
      const file = path.join(root, issuer, hostname, `${hostname}.crt`)
      const pem = await readFile(file, 'utf8').catch(() => null)
      if (pem === null) continue
      try {
        const { serialNumber } = new X509Certificate(pem)
        stored.set(hostname, [...(stored.get(hostname) ?? []), { serial: serialNumber, file }])
      } catch {
        // A half-written file (Caddy is storing it right now): the next scan reads it.
      }
    }
  }
  return stored
}

async function observeAll(
  hostnames: readonly string[],
  observe: ScanInput['observe'],
): Promise<CertificateObservation[]> {
  const observed: CertificateObservation[] = []
  const queue = [...hostnames]
  const worker = async () => {
    for (let hostname = queue.shift(); hostname !== undefined; hostname = queue.shift()) {
      try {
        observed.push(await observe(hostname))
      } catch (error) {
        console.error(
          `hosting-panel agent: scan: ${hostname}: ${error instanceof Error ? error.message : String(error)}`,
        )
      }
    }
  }
  await Promise.all(Array.from({ length: HANDSHAKES_AT_ONCE }, worker))
  return observed
}

/**
 * One scan: reports (in batches of 500) what Caddy serves for each hostname whose stored certificate is not the
 * one last reported, and answers what it reported. A batch the panel refused is tried again at the next scan.
 */
export async function scanCertificates(input: ScanInput): Promise<CertificateObservation[]> {
  for (const hostname of input.reported.keys()) if (!input.serves(hostname)) input.reported.delete(hostname)
  const changed = [...input.stored].flatMap(([hostname, certificates]) => {
    const last = input.reported.get(hostname)
    return certificates.some((stored) => stored.serial === last) ? [] : [hostname]
  })
  const fresh = (await observeAll(changed, input.observe)).filter(
    (observation) => input.reported.get(observation.hostname) !== observation.serial,
  )
  const reported: CertificateObservation[] = []
  for (let i = 0; i < fresh.length; i += REPORT_BATCH) {
    const batch = fresh.slice(i, i + REPORT_BATCH)
    try {
      await input.report(batch)
    } catch (error) {
      console.error(
        `hosting-panel agent: scan: reporting ${batch.length} certificates failed: ${error instanceof Error ? error.message : String(error)}`,
      )
      continue
    }
    for (const observation of batch) input.reported.set(observation.hostname, observation.serial)
    reported.push(...batch)
  }
  return reported
}
