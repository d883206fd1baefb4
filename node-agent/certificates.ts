import { readdir, rm } from 'node:fs/promises'
import path from 'node:path'
import { connect } from 'node:tls'
import type { CertificateObservation } from '../src/agent-contract/v1.ts'

const HANDSHAKE_TIMEOUT_MS = 60_000

/** Where Caddy serves HTTPS on this machine, and the roots its certificates must chain to (null: the system's). */
export interface TlsTarget {
  host: string
  port: number
  ca: string | null
}

/**
 * Completes a TLS handshake with the local Caddy using `hostname` as SNI (which makes Caddy obtain the
 * certificate on demand) and reads the certificate it serves. The chain and the name are verified, so a
 * fallback or foreign certificate is an error, never an observation.
 */
export function observeCertificate(hostname: string, target: TlsTarget): Promise<CertificateObservation> {
  return new Promise((resolve, reject) => {
    const socket = connect({
      host: target.host,
      port: target.port,
      servername: hostname,
      ...(target.ca ? { ca: target.ca } : {}),
      timeout: HANDSHAKE_TIMEOUT_MS,
    })
    socket.once('timeout', () => socket.destroy(new Error(`no TLS handshake for ${hostname} within 60 s`)))
    socket.once('error', (error) =>
      reject(new Error(`TLS handshake for ${hostname} failed: ${error.message}`)),
    )
    socket.once('secureConnect', () => {
      const certificate = socket.getPeerX509Certificate()
      socket.end()
      if (!certificate) return reject(new Error(`Caddy served no certificate for ${hostname}`))
      resolve({
        hostname,
        notAfter: new Date(certificate.validTo).toISOString(),
        serial: certificate.serialNumber,
        issuer: certificate.issuer.split('\n').join(', ').slice(0, 256),
        observedAt: new Date().toISOString(),
      })
    })
  })
}

/** Deletes every stored certificate of `hostname`, whichever issuer's folder holds it (certmagic's layout). */
export async function dropStoredCertificate(storageDir: string, hostname: string): Promise<void> {
  const root = path.join(storageDir, 'certificates')
  const issuers = await readdir(root).catch(() => [])
  await Promise.all(
    issuers.map((issuer) => rm(path.join(root, issuer, hostname), { recursive: true, force: true })),
  )
}
