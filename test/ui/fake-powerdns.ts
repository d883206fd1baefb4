import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'

// A PowerDNS Authoritative API on 127.0.0.1 for the DNS pages' UI test: one server (`localhost`), zones in
// memory, REPLACE/DELETE patches, and signing that makes one fixed CSK. Just enough for the panel's box client.

export const FAKE_POWERDNS_KEY = 'ui-fake-powerdns-key'

interface RRset {
  name: string
  type: string
  ttl: number
  records: { content: string; disabled: boolean }[]
}

interface Zone {
  id: string
  name: string
  dnssec: boolean
  serial: number
  rrsets: RRset[]
}

type Change = {
  name: string
  type: string
  changetype: 'REPLACE' | 'DELETE'
  ttl?: number
  records?: RRset['records']
}

const CSK = {
  id: 1,
  keytype: 'csk',
  active: true,
  published: true,
  flags: 257,
  dnskey: '257 3 13 dWktZmFrZS1wb3dlcmRucy1rZXktZm9yLXRoZS11aS10ZXN0',
  ds: [
    '4242 13 2 6f1c3a9be0d84c2a9a3b1e5f7d0c2b4a6e8f0a1b3c5d7e9f1a2b3c4d5e6f7a8b',
    '4242 13 4 0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9',
  ],
}

async function readJson(request: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = []
  for await (const chunk of request) chunks.push(chunk as Buffer)
  const text = Buffer.concat(chunks).toString('utf8')
  return text ? (JSON.parse(text) as Record<string, unknown>) : {}
}

function patch(zone: Zone, changes: readonly Change[]): void {
  for (const change of changes) {
    zone.rrsets = zone.rrsets.filter((r) => !(r.name === change.name && r.type === change.type))
    if (change.changetype === 'REPLACE')
      zone.rrsets.push({
        name: change.name,
        type: change.type,
        ttl: change.ttl ?? 3600,
        records: change.records ?? [],
      })
  }
  zone.serial++
}

/** Starts the fake on a free port; resolves with its API URL and a function that stops it. */
export async function startFakePowerDns(): Promise<{ url: string; close: () => Promise<void> }> {
  const zones = new Map<string, Zone>()
  const server = createServer(async (request, response) => {
    const answer = (status: number, body?: unknown) =>
      response
        .writeHead(status, body === undefined ? {} : { 'content-type': 'application/json' })
        .end(body === undefined ? undefined : JSON.stringify(body))
    if (request.headers['x-api-key'] !== FAKE_POWERDNS_KEY) return answer(401, { error: 'Unauthorized' })
    const url = new URL(request.url ?? '/', 'http://fake')
    const match = /^\/api\/v1\/servers\/localhost(?:\/zones(?:\/([^/]+)(\/rectify|\/cryptokeys)?)?)?$/.exec(
      url.pathname,
    )
    if (!match) return answer(404, { error: 'Not Found' })
    const [path, zoneName, tail] = match
    const method = request.method ?? 'GET'
    if (path === '/api/v1/servers/localhost')
      return answer(200, { id: 'localhost', daemon_type: 'authoritative', version: '4.9.0-ui-fake' })
    if (!zoneName) {
      const body = await readJson(request)
      const name = String(body.name)
      if (zones.has(name)) return answer(409, { error: `Domain '${name}' already exists` })
      const ns = (body.nameservers as string[]).map((host) => ({ content: host, disabled: false }))
      const zone: Zone = {
        id: name,
        name,
        dnssec: false,
        serial: 1,
        rrsets: [...(body.rrsets as RRset[]), { name, type: 'NS', ttl: 3600, records: ns }],
      }
      zones.set(name, zone)
      return answer(201, zone)
    }
    const zone = zones.get(decodeURIComponent(zoneName))
    if (!zone) return answer(404, { error: 'Could not find domain' })
    if (tail === '/rectify') return answer(200, { result: 'Rectified' })
    if (tail === '/cryptokeys') return answer(200, zone.dnssec ? [CSK] : [])
    if (method === 'GET') return answer(200, zone)
    const body = await readJson(request)
    if (method === 'PATCH') patch(zone, body.rrsets as Change[])
    if (method === 'PUT' && typeof body.dnssec === 'boolean') zone.dnssec = body.dnssec
    return answer(204)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
