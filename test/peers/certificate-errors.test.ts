import { beforeAll, describe, expect, it } from 'vitest'
import { zoneName } from '../custom-hostnames/fixture'
import { captureJobs } from '../dns-servers/run-job'
import { type Caller, ok } from '../helpers/http'
import { drainJobs } from '../helpers/jobs'
import { adminSession } from '../helpers/principals'
import {
  type EdgeNode,
  edgeNode,
  enrollPeerBoxes,
  httpsThroughCaddy,
  peers,
  timedStep,
  withAgentRelay,
} from './peers'

// Certificates in the CA's words, end to end: the agent reads what Caddy logged of an on-demand issuance that
// pebble refused (validating HTTP-01 against PowerDNS box 0) and the panel answers it as cert.lastError.
// Debian's pebble 2.4.0 checks no CAA record at all (a CAA set forbidding it changes nothing), so a `caa` kind
// cannot come from it; the node unit tests classify CAA by the problem type.

interface Cert {
  issued: boolean
  lastError?: { at: string; kind: string; problemType?: string; detail: string }
  nextAttemptAt?: string
}

/** Deletes the name's address records from box 0, the server pebble resolves with. */
async function dropAddressRecords(zone: string, name: string): Promise<void> {
  const [box] = peers.boxes
  if (!box) throw new Error('no PowerDNS box 0')
  const response = await fetch(`${box.apiUrl}/api/v1/servers/localhost/zones/${zone}.`, {
    method: 'PATCH',
    headers: { 'x-api-key': box.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({
      rrsets: ['A', 'AAAA', 'CNAME'].map((type) => ({ name: `${name}.`, type, changetype: 'DELETE' })),
    }),
  })
  expect(response.status, await response.text()).toBe(204)
}

describe('certificate errors in the CA’s words', () => {
  let admin: Caller
  let node: EdgeNode
  let zone: { id: string; name: string }

  beforeAll(async () => {
    admin = await adminSession()
    await enrollPeerBoxes(admin, 'certerr')
    zone = await ok('dnsServers.zones.create', { name: zoneName('certerr') }, admin)
    node = await edgeNode(admin, 'certerr')
  })

  it('should answer a name pebble cannot resolve as cert.lastError dns, with Caddy’s next attempt', async () => {
    const sent = captureJobs()
    const hostname = `gone.${zone.name}`
    await ok('customHostnames.settings.set', { siteId: node.siteId, allowedZones: [zone.name] }, admin)
    await ok('customHostnames.register', { siteId: node.siteId, hostname }, admin)
    await timedStep('cert errors: records and route', () => drainJobs(sent, ''))
    const status = () =>
      ok<{ state: string; cert: Cert }>('customHostnames.status', { siteId: node.siteId, hostname }, admin)
    expect((await status()).state).toBe('active')
    await dropAddressRecords(zone.name, hostname)

    // The handshake waits while Caddy obtains (certmagic keeps at it for 180 s, whatever the client does); its
    // outcome says nothing here, so it is left to end on its own (the control server closes it at teardown).
    void httpsThroughCaddy(hostname).catch(() => undefined)
    const cert = await timedStep('cert errors: the agent reports the refusal', () =>
      withAgentRelay(async () => {
        for (let i = 0; i < 120; i++) {
          const current = (await status()).cert
          if (current.lastError && current.nextAttemptAt) return current
          await new Promise((resolve) => setTimeout(resolve, 250))
        }
        return (await status()).cert
      }),
    )
    // Caddy tries HTTP-01 or TLS-ALPN-01 first at random; pebble words the same failure as `connection` for
    // HTTP-01 and as `malformed` for TLS-ALPN-01 (where it stops, without trying the other).
    expect(cert).toMatchObject({
      issued: false,
      lastError: {
        kind: 'dns',
        detail: expect.stringMatching(new RegExp(`could not resolve URL "(http://)?${hostname}`, 'i')),
      },
    })
    expect(['urn:ietf:params:acme:error:connection', 'urn:ietf:params:acme:error:malformed']).toContain(
      cert.lastError?.problemType,
    )
    // certmagic retries an on-demand obtain after 1 minute, inside its 180 s.
    const after = Date.parse(cert.nextAttemptAt ?? '') - Date.parse(cert.lastError?.at ?? '')
    expect(after).toBeGreaterThanOrEqual(59_000)
    expect(after).toBeLessThanOrEqual(61_000)
  })
})
