import { canonicalIpv6 } from '../../src/dns-servers/records/validation'
import { fakeOrigin } from '../helpers/outbound'
import { dsFor } from './dnssec'

// An in-memory PowerDNS Authoritative 4.7 HTTP API, answering the way the real one does (checked against
// pdns_server 4.7.3): JSON bodies for 200/201, errors as JSON `{"error": ...}` for a client that sends
// `accept: application/json` as the panel does (plain text only without it, e.g. curl's default),
// 204 with no body for PATCH/PUT/DELETE, names absolute with the trailing dot, TXT content quoted.

interface FakeRecord {
  content: string
  disabled: boolean
}

interface FakeRRset {
  name: string
  type: string
  ttl: number
  records: FakeRecord[]
}

interface FakeKey {
  id: number
  keytype: 'ksk' | 'zsk' | 'csk'
  active: boolean
  published: boolean
  dnskey: string
  privatekey: string
}

interface FakeZone {
  name: string
  dnssec: boolean
  apiRectify: boolean
  serial: number
  rrsets: FakeRRset[]
  keys: FakeKey[]
  rectified: number
}

// Key material by its private-key text, so a key exported from one fake box can be imported into another
// (the real server derives the public key from the private one; WebCrypto cannot).
const generatedKeys = new Map<string, string>()

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } })
}

const unprocessable = (error: string) => json(422, { error })

/** 401, 404, 405 and 409 say no more than the status's own words. */
const refused = (status: number, error: string) => json(status, { error })

class Rejection extends Error {}

function toBase64(bytes: ArrayBuffer): string {
  return btoa(String.fromCharCode(...new Uint8Array(bytes)))
}

async function generateKey(): Promise<{ dnskey: string; privatekey: string }> {
  const pair = (await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, [
    'sign',
    'verify',
  ])) as CryptoKeyPair
  const raw = new Uint8Array((await crypto.subtle.exportKey('raw', pair.publicKey)) as ArrayBuffer)
  const jwk = (await crypto.subtle.exportKey('jwk', pair.privateKey)) as JsonWebKey
  const d = (jwk.d ?? '').replaceAll('-', '+').replaceAll('_', '/')
  const dnskey = `257 3 13 ${toBase64(raw.slice(1).buffer)}`
  const privatekey = `Private-key-format: v1.2\nAlgorithm: 13 (ECDSAP256SHA256)\nPrivateKey: ${d}${'='.repeat((4 - (d.length % 4)) % 4)}\n`
  generatedKeys.set(privatekey, dnskey)
  return { dnskey, privatekey }
}

const IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/

function checkContent(name: string, type: string, content: string): string {
  const fail = (why: string) =>
    new Rejection(
      `Record ${name}/${type} '${content}': Parsing record content (try 'pdnsutil check-zone'): ${why}`,
    )
  switch (type) {
    case 'A':
      if (!IPV4.test(content)) throw fail('unable to parse IP address')
      return content
    case 'AAAA': {
      const canonical = canonicalIpv6(content)
      if (!canonical) throw fail('unable to parse IPv6 address')
      return canonical
    }
    case 'CNAME':
    case 'NS':
      if (!content.endsWith('.')) throw fail('not a canonical name')
      return content
    case 'MX':
      if (!/^\d+ \S+\.$/.test(content)) throw fail('Data field in DNS should be an integer and a name')
      return content
    case 'TXT':
      if (!content.startsWith('"')) {
        throw new Rejection(
          `Record ${name}/${type} '${content}': Not in expected format (parsed as '"${content}"')`,
        )
      }
      return content
    default:
      return content
  }
}

function keyView(key: FakeKey, ds: string[], withPrivate: boolean) {
  return {
    type: 'Cryptokey',
    id: key.id,
    keytype: key.keytype,
    active: key.active,
    published: key.published,
    flags: 257,
    algorithm: 'ECDSAP256SHA256',
    bits: 256,
    dnskey: key.dnskey,
    ds,
    ...(withPrivate ? { privatekey: key.privatekey } : {}),
  }
}

/** One fake PowerDNS box; `down` makes every request fail like a refused connection. */
export class FakePowerDns {
  readonly serverId = 'localhost'
  down = false
  /** Fails the requests it matches like a refused connection (a box that stops answering mid-way). */
  refuse: ((request: Request) => boolean) | null = null
  /** Answers in place of the API when it returns a response (error bodies the real server may send). */
  answer: ((request: Request) => Response | null) | null = null
  /** Runs after the box computed its answer and before the caller gets it: a race at an exact point. */
  afterAnswer: ((request: Request) => Promise<void>) | null = null
  readonly zones = new Map<string, FakeZone>()
  /** How many requests reached the box while it was up. */
  served = 0

  constructor(
    readonly origin: string,
    public apiKey: string,
  ) {}

  get apiUrl(): string {
    return this.origin
  }

  /** Routes the Worker's outgoing fetches for this box's origin to it (for the current test). */
  install(): this {
    fakeOrigin(this.origin, (request) => this.handle(request))
    return this
  }

  /** What `dig @box name type +short` would print: the contents of the set, or nothing. */
  lookup(name: string, type: string): string[] {
    const absolute = name.endsWith('.') ? name : `${name}.`
    const zone = [...this.zones.values()].find((z) => absolute === z.name || absolute.endsWith(`.${z.name}`))
    if (!zone) return []
    if (type === 'DNSKEY') return absolute === zone.name ? zone.keys.map((k) => k.dnskey) : []
    const exists = (owner: string) => zone.rrsets.some((r) => r.name === owner)
    // A wildcard answers for a name that holds no data of its own (RFC 4592, minus empty non-terminals).
    const owner = exists(absolute) ? absolute : `*.${absolute.slice(absolute.indexOf('.') + 1)}`
    const rrset = zone.rrsets.find((r) => r.name === owner && r.type === type)
    return rrset ? rrset.records.filter((r) => !r.disabled).map((r) => r.content) : []
  }

  /** Up again with no test hooks: call before each test, as the box outlives it. */
  reset(): this {
    this.down = false
    this.refuse = null
    this.answer = null
    this.afterAnswer = null
    return this
  }

  async handle(request: Request): Promise<Response> {
    if (this.down || this.refuse?.(request)) {
      throw new TypeError(`network error: connection refused by ${this.origin}`)
    }
    const response = this.answer?.(request) ?? (await this.api(request))
    await this.afterAnswer?.(request)
    return response
  }

  private async api(request: Request): Promise<Response> {
    this.served++
    if (request.headers.get('x-api-key') !== this.apiKey) return refused(401, 'Unauthorized')
    const path = new URL(request.url).pathname
    const prefix = `/api/v1/servers/${this.serverId}`
    if (!path.startsWith(prefix)) return refused(404, 'Not Found')
    const parts = path.slice(prefix.length).split('/').filter(Boolean).map(decodeURIComponent)
    try {
      return await this.route(request, parts)
    } catch (error) {
      if (error instanceof Rejection) return unprocessable(error.message)
      throw error
    }
  }

  private async route(request: Request, parts: string[]): Promise<Response> {
    const method = request.method
    const [collection, zoneId, sub, subId] = parts
    if (!collection && method === 'GET') {
      return json(200, { type: 'Server', id: this.serverId, daemon_type: 'authoritative', version: '4.7.3' })
    }
    if (collection !== 'zones') return refused(404, 'Not Found')
    if (!zoneId) {
      if (method === 'GET')
        return json(
          200,
          [...this.zones.values()].map((z) => this.zoneView(z, false)),
        )
      if (method === 'POST') return this.createZone(await request.json())
      return refused(405, 'Method Not Allowed')
    }
    const zone = this.zones.get(zoneId)
    if (!zone) return refused(404, 'Not Found')
    if (!sub) {
      if (method === 'GET') return json(200, await this.zoneView(zone, true))
      if (method === 'PATCH') return this.patch(zone, await request.json())
      if (method === 'PUT') return this.put(zone, await request.json())
      if (method === 'DELETE') {
        this.zones.delete(zoneId)
        return new Response(null, { status: 204 })
      }
    }
    if (sub === 'rectify' && method === 'PUT') {
      zone.rectified++
      return json(200, { result: 'Rectified' })
    }
    if (sub === 'cryptokeys') return this.cryptokeys(request, zone, subId)
    return refused(404, 'Not Found')
  }

  private zoneView(zone: FakeZone, withRRsets: boolean) {
    return {
      id: zone.name,
      name: zone.name,
      kind: 'Native',
      dnssec: zone.dnssec,
      api_rectify: zone.apiRectify,
      serial: zone.serial,
      edited_serial: zone.serial,
      notified_serial: 0,
      soa_edit_api: 'DEFAULT',
      masters: [],
      url: `/api/v1/servers/${this.serverId}/zones/${zone.name}`,
      ...(withRRsets ? { rrsets: zone.rrsets.map((r) => ({ ...r, comments: [] })) } : {}),
    }
  }

  private bump(zone: FakeZone): void {
    zone.serial++
    const soa = zone.rrsets.find((r) => r.type === 'SOA')
    const record = soa?.records[0]
    if (record) record.content = record.content.replace(/^(\S+ \S+ )\d+/, `$1${zone.serial}`)
  }

  private createZone(body: {
    name?: string
    nameservers?: string[]
    api_rectify?: boolean
    rrsets?: FakeRRset[]
  }): Response {
    const name = body.name ?? ''
    if (!name.endsWith('.')) return unprocessable(`DNS Name '${name}' is not canonical`)
    if (this.zones.has(name)) return refused(409, 'Conflict')
    const serial = 2026112101
    const soa = body.rrsets?.find((r) => r.type === 'SOA')?.records[0]?.content
    const zone: FakeZone = {
      name,
      dnssec: false,
      apiRectify: body.api_rectify ?? false,
      serial,
      rrsets: [
        {
          name,
          type: 'SOA',
          ttl: 3600,
          records: [
            {
              content: (
                soa ?? `a.misconfigured.dns.server.invalid. hostmaster.${name} 0 10800 3600 604800 3600`
              ).replace(/^(\S+ \S+ )\d+/, `$1${serial}`),
              disabled: false,
            },
          ],
        },
      ],
      keys: [],
      rectified: 0,
    }
    const nameservers = body.nameservers ?? []
    if (nameservers.length > 0) {
      zone.rrsets.push({
        name,
        type: 'NS',
        ttl: 3600,
        records: nameservers.map((ns) => ({ content: ns, disabled: false })),
      })
    }
    this.zones.set(name, zone)
    return json(201, this.zoneView(zone, true))
  }

  private patch(
    zone: FakeZone,
    body: {
      rrsets?: { name: string; type: string; ttl?: number; changetype: string; records?: FakeRecord[] }[]
    },
  ): Response {
    const next = zone.rrsets.map((r) => ({ ...r, records: [...r.records] }))
    for (const change of body.rrsets ?? []) {
      if (!change.name.endsWith('.')) return unprocessable(`DNS Name '${change.name}' is not canonical`)
      if (change.name !== zone.name && !change.name.endsWith(`.${zone.name}`)) {
        return unprocessable(`RRset ${change.name} IN ${change.type}: Name is out of zone`)
      }
      const at = next.findIndex((r) => r.name === change.name && r.type === change.type)
      if (at >= 0) next.splice(at, 1)
      if (change.changetype === 'DELETE' || (change.records ?? []).length === 0) continue
      if (change.changetype !== 'REPLACE') return unprocessable(`Changetype not understood`)
      const records = (change.records ?? []).map((r) => ({
        content: checkContent(change.name, change.type, r.content),
        disabled: r.disabled,
      }))
      const seen = new Set<string>()
      for (const r of records) {
        if (seen.has(r.content)) {
          return unprocessable(
            `Duplicate record in RRset ${change.name} IN ${change.type} with content "${r.content}"`,
          )
        }
        seen.add(r.content)
      }
      const others = next.filter((r) => r.name === change.name)
      if (others.length > 0 && (change.type === 'CNAME' || others.some((r) => r.type === 'CNAME'))) {
        return unprocessable(`RRset ${change.name} IN ${change.type}: Conflicts with pre-existing RRset`)
      }
      next.push({ name: change.name, type: change.type, ttl: change.ttl ?? 3600, records })
    }
    zone.rrsets = next
    this.bump(zone)
    return new Response(null, { status: 204 })
  }

  private async put(zone: FakeZone, body: { dnssec?: boolean; api_rectify?: boolean }): Promise<Response> {
    if (body.api_rectify !== undefined) zone.apiRectify = body.api_rectify
    if (body.dnssec === true && !zone.dnssec) {
      const key = await generateKey()
      zone.keys.push({ id: 1, keytype: 'csk', active: true, published: true, ...key })
      zone.dnssec = true
    }
    if (body.dnssec === false && zone.dnssec) {
      zone.keys = []
      zone.dnssec = false
    }
    return new Response(null, { status: 204 })
  }

  private async dsOf(zone: FakeZone, key: FakeKey): Promise<string[]> {
    return Promise.all([1, 2, 4].map((digest) => dsFor(zone.name, key.dnskey, digest)))
  }

  private async cryptokeys(request: Request, zone: FakeZone, keyId: string | undefined): Promise<Response> {
    if (!keyId && request.method === 'GET') {
      return json(
        200,
        await Promise.all(zone.keys.map(async (k) => keyView(k, await this.dsOf(zone, k), false))),
      )
    }
    if (!keyId && request.method === 'POST') {
      const body = (await request.json()) as {
        keytype?: 'ksk' | 'zsk' | 'csk'
        active?: boolean
        published?: boolean
        content?: string
      }
      let material: { dnskey: string; privatekey: string }
      if (body.content) {
        const dnskey = generatedKeys.get(body.content)
        if (!dnskey) return unprocessable('Adding key failed: the private key could not be parsed')
        material = { dnskey, privatekey: body.content }
      } else {
        material = await generateKey()
      }
      const key: FakeKey = {
        id: Math.max(0, ...zone.keys.map((k) => k.id)) + 1,
        keytype: body.keytype ?? 'csk',
        active: body.active ?? false,
        published: body.published ?? true,
        ...material,
      }
      zone.keys.push(key)
      zone.dnssec = true
      return json(201, keyView(key, await this.dsOf(zone, key), true))
    }
    const key = zone.keys.find((k) => String(k.id) === keyId)
    if (!key) return refused(404, 'Not Found')
    if (request.method === 'GET') return json(200, keyView(key, await this.dsOf(zone, key), true))
    if (request.method === 'DELETE') {
      zone.keys = zone.keys.filter((k) => k !== key)
      zone.dnssec = zone.keys.length > 0
      return new Response(null, { status: 204 })
    }
    return refused(405, 'Method Not Allowed')
  }
}
