import { connect } from 'node:tls'
import { judgeExpiry } from '../../src/probes/checks/expiry.ts'
import { down, type Verdict } from '../../src/probes/checks/verdict.ts'
import type { Vet } from './destination.ts'
import { checkAddress, errorText } from './target.ts'

const TLS_PORT = 443

/**
 * Reads the certificate `host[:port]` serves, from this node, with a full TLS handshake (TLS 1.2 or 1.3, so a
 * TLS 1.3-only server is read too), and judges its expiry. The certificate is not verified: an expired or
 * untrusted one must still be read. The connection goes to the address the rule vetted; a name is sent as SNI,
 * an address is not.
 */
export async function checkCert(
  target: string,
  timeoutMs: number,
  certWarnDays: number,
  vet: Vet,
): Promise<Verdict> {
  const address = checkAddress(target, TLS_PORT)
  if (!address) return down(`the target ${target} is not a host or host:port`)
  const unread = (why: string) => down(`could not read the certificate's expiry: ${why}`)
  const started = Date.now()
  const vetted = await vet(address.host, address.port, timeoutMs)
  if ('problem' in vetted) return down(vetted.problem)
  const remaining = Math.max(0, timeoutMs - (Date.now() - started))
  return new Promise((resolve) => {
    const socket = connect({
      host: vetted.address,
      port: address.port,
      ...(address.named ? { servername: address.host } : {}),
      rejectUnauthorized: false,
    })
    const done = (verdict: Verdict) => {
      clearTimeout(timer)
      socket.destroy()
      resolve(verdict)
    }
    const timer = setTimeout(() => done(unread(`no TLS handshake within ${timeoutMs} ms`)), remaining)
    socket.once('error', (error) => done(unread(errorText(error))))
    socket.once('secureConnect', () => {
      const certificate = socket.getPeerX509Certificate()
      if (!certificate) return done(unread('the server sent no certificate'))
      const validity = { notBefore: new Date(certificate.validFrom), notAfter: new Date(certificate.validTo) }
      done(judgeExpiry(validity, Date.now() - started, certWarnDays))
    })
  })
}
