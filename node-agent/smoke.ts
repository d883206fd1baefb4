import { request } from 'node:https'
import type { SmokeResult } from '../src/agent-contract/v1.ts'
import type { TlsTarget } from './certificates.ts'

const SMOKE_TIMEOUT_MS = 30_000

/** One HTTPS GET / for `hostname` through the local Caddy (SNI and Host); ok when the upstream answered 2xx/3xx. */
export function smokeRequest(hostname: string, target: TlsTarget): Promise<SmokeResult> {
  return new Promise((resolve) => {
    const outgoing = request({
      host: target.host,
      port: target.port,
      servername: hostname,
      headers: { host: hostname, 'user-agent': 'hosting-panel-agent smoke' },
      path: '/',
      method: 'GET',
      agent: false,
      ...(target.ca ? { ca: target.ca } : {}),
      timeout: SMOKE_TIMEOUT_MS,
    })
    outgoing.once('timeout', () => outgoing.destroy(new Error('no answer within 30 s')))
    outgoing.once('error', (error) =>
      resolve({
        ok: false,
        status: null,
        detail: `https://${hostname}/ failed: ${error.message}`.slice(0, 500),
      }),
    )
    outgoing.once('response', (response) => {
      response.resume()
      const status = response.statusCode ?? 0
      const ok = status >= 200 && status < 400
      resolve({
        ok,
        status,
        detail: `https://${hostname}/ answered ${status}${ok ? '' : ' (the upstream did not answer successfully)'}`,
      })
    })
    outgoing.end()
  })
}
