import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { JobMessage } from '../src/jobs/messages'
import { FakeDoh } from './fakes/doh'
import { dohQuestion } from './fakes/doh-wire'
import { FakeNodeAgent } from './fakes/node-agent'
import { FakePowerDns } from './fakes/powerdns'
import { digitalOceanFake } from './fakes/provider-b-digitalocean'
import { captureJobs, publishRelease, runJobs, workerEnv } from './helpers/changelog'
import { type Caller, call, ok } from './helpers/http'
import { fakeOrigin, interceptOutbound, outboundRequests } from './helpers/outbound'
import { adminSession } from './helpers/principals'

// The production outbound rule: refused names and ranges when a URL is saved, and the same rule plus a DoH
// resolution of the host every time a request is sent, so a stored URL or a name pointing inward gets nowhere.

const SECRET = 'target-secret-0123456789abcdef'
const AGENT_SECRET = 'agent-secret-MARKER-0123456789'
const API_KEY = 'pdns-api-key-MARKER-7f3a9c'

interface Delivery {
  status: string
  lastError: string | null
}

let admin: Caller
let jobs: ReturnType<typeof captureJobs>
let counter = 0
const unique = (prefix: string) => `${prefix}-${++counter}-${crypto.randomUUID().slice(0, 6)}`

/** Runs `body` with ENVIRONMENT set to `value` (undefined: the var is absent), then puts production back. */
async function withEnvironment<T>(value: string | undefined, body: () => Promise<T>): Promise<T> {
  workerEnv.ENVIRONMENT = value
  try {
    return await body()
  } finally {
    workerEnv.ENVIRONMENT = 'production'
  }
}

/** A webhook receiver on `origin` that counts what reaches it. */
function receiver(origin: string): Request[] {
  const hits: Request[] = []
  fakeOrigin(origin, (request) => {
    hits.push(request)
    return new Response(null, { status: 200 })
  })
  return hits
}

/** Publishes a release to the enabled target `targetId` alone, runs its delivery job and returns the delivery. */
async function deliverTo(targetId: string): Promise<Delivery> {
  for (const target of await ok<{ id: string }[]>('changelog.webhooks.list', {}, admin)) {
    if (target.id !== targetId)
      await ok('changelog.webhooks.update', { id: target.id, enabled: false }, admin)
  }
  jobs.sent.length = 0
  const release = await publishRelease(admin, `20.${++counter}.0`, '2026-06-01')
  const messages: JobMessage[] = jobs.sent.splice(0)
  await runJobs(messages.map((body) => ({ body })))
  const [delivery] = await ok<Delivery[]>('changelog.webhooks.deliveries', { releaseId: release.id }, admin)
  if (!delivery) throw new Error('no delivery was recorded')
  return delivery
}

const createTarget = (url: string) =>
  ok<{ id: string }>('changelog.webhooks.create', { url, secret: SECRET, enabled: true }, admin)

beforeAll(async () => {
  admin = await adminSession()
  jobs = captureJobs()
})

beforeEach(() => {
  interceptOutbound()
  workerEnv.ENVIRONMENT = 'production'
})

describe('outbound URLs when saved in production', () => {
  it.each([
    ['a single-label name', 'https://intranet/hook'],
    ['a single-label name with a port', 'https://vm:18891/'],
    ['a single-label name with a trailing dot', 'https://instance-data./'],
    ['.internal', 'https://metadata.google.internal/computeMetadata/v1/'],
    ['.local', 'https://printer.local/'],
    ['.lan', 'https://nas.lan/'],
    ['.localhost', 'https://app.localhost/'],
    ['.home.arpa', 'https://router.home.arpa/'],
    ['.arpa', 'https://1.0.0.127.in-addr.arpa/'],
    ['.localdomain', 'https://box.localdomain/'],
    ['.corp', 'https://wiki.corp/'],
    ['.home', 'https://camera.home/'],
    ['.intranet', 'https://hr.intranet/'],
    ['.private', 'https://db.private/'],
    ['an upper-case .INTERNAL', 'https://Metadata.Google.INTERNAL/'],
    ['IPv4-compatible ::/96', 'https://[::127.0.0.1]/'],
    ['IPv4-compatible ::/96, public IPv4', 'https://[::8.8.8.8]/'],
    ['IPv4-mapped ::ffff:0:0/96, public IPv4', 'https://[::ffff:8.8.8.8]/'],
    ['IPv4-translated ::ffff:0:0:0/96', 'https://[::ffff:0:127.0.0.1]/'],
    ['NAT64 64:ff9b::/96, public IPv4', 'https://[64:ff9b::808:808]/'],
    ['local-use NAT64 64:ff9b:1::/48', 'https://[64:ff9b:1::7f00:1]/'],
    ['6to4 2002::/16', 'https://[2002:7f00:1::1]/'],
    ['Teredo 2001::/32', 'https://[2001:0::7f00:1]/'],
    ['IPv6 documentation 2001:db8::/32', 'https://[2001:db8::1]/'],
    ['IPv6 documentation 3fff::/20', 'https://[3fff::1]/'],
    ['IPv6 discard 100::/64', 'https://[100::1]/'],
    ['IETF protocol assignments 192.0.0.0/24', 'https://192.0.0.1/'],
    ['TEST-NET-1 192.0.2.0/24', 'https://192.0.2.1/'],
    ['6to4 relay anycast 192.88.99.0/24', 'https://192.88.99.1/'],
    ['benchmarking 198.18.0.0/15', 'https://198.19.255.1/'],
    ['TEST-NET-2 198.51.100.0/24', 'https://198.51.100.7/'],
    ['TEST-NET-3 203.0.113.0/24', 'https://203.0.113.7/'],
    ['reserved 240.0.0.0/4', 'https://240.0.0.1/'],
    ['broadcast', 'https://255.255.255.255/'],
  ])('should refuse %s, naming url', async (_what, url) => {
    const res = await call<{ issues?: { path: string; message: string }[] }>(
      'changelog.webhooks.create',
      { url, secret: SECRET },
      admin,
    )
    expect(res.status, res.text).toBe(400)
    expect(res.body.issues?.map((i) => i.path)).toEqual(['url'])
  })

  it.each([
    ['a public name', 'https://hooks.example.com/x'],
    ['a public name under a two-label suffix', 'https://hooks.example.co.uk/x'],
    ['a public IPv4 address', 'https://8.8.8.8/x'],
    ['a public IPv6 address', 'https://[2606:4700::1111]/x'],
  ])('should accept %s', async (_what, url) => {
    const res = await call('changelog.webhooks.create', { url, secret: SECRET, enabled: false }, admin)
    expect(res.status, res.text).toBe(200)
  })

  it.each([
    ['nodes.create', 'agentUrl'],
    ['dnsServers.nameservers.enroll', 'agentUrl'],
    ['dnsServers.nameservers.enroll', 'powerDns.apiUrl'],
    ['accounts.create', 'apiBaseUrl'],
    ['changelog.mirror.set', 'upstream'],
  ])('should refuse internal names and IPv6 embeddings in %s %s, naming it', async (procedure, field) => {
    for (const url of ['https://metadata.google.internal', 'https://[64:ff9b:1::7f00:1]']) {
      const agentUrl = field === 'agentUrl' ? url : 'https://agent.example.com'
      const inputs: Record<string, Record<string, unknown>> = {
        'nodes.create': { name: unique('node'), agentUrl, agentSecret: AGENT_SECRET, publicIpv4: '8.8.4.4' },
        'dnsServers.nameservers.enroll': {
          name: unique('ns'),
          hostname: `${unique('ns')}.example.com`,
          publicIpv4: '8.8.4.4',
          agentUrl,
          agentSecret: AGENT_SECRET,
          ...(field === 'powerDns.apiUrl' ? { powerDns: { apiUrl: url, apiKey: API_KEY } } : {}),
        },
        'accounts.create': {
          kind: 'dns',
          name: unique('dns'),
          provider: 'provider_b',
          token: 'x',
          apiBaseUrl: url,
        },
        'changelog.mirror.set': { upstream: url },
      }
      const res = await call<{ issues?: { path: string }[] }>(procedure, inputs[procedure], admin)
      expect(res.status, `${url}: ${res.text}`).toBe(400)
      expect(res.body.issues?.map((i) => i.path)).toEqual([field])
    }
    expect(outboundRequests()).toEqual([])
  })

  it.each([
    ['absent', undefined],
    ['misspelled', 'prod'],
    ['capitalised', 'Development'],
    ['empty', ''],
    ['another name', 'staging'],
  ])('should behave as production when ENVIRONMENT is %s', async (_what, value) => {
    await withEnvironment(value, async () => {
      for (const url of ['http://hooks.example.com/x', 'https://127.0.0.1/x', 'https://intranet/x']) {
        const res = await call('changelog.webhooks.create', { url, secret: SECRET }, admin)
        expect(res.status, `${url}: ${res.text}`).toBe(400)
      }
    })
  })

  it('should allow loopback and single-label names only when ENVIRONMENT is exactly development', async () => {
    await withEnvironment('development', async () => {
      for (const url of ['http://127.0.0.1:9999/hook', 'http://vm:8080/hook']) {
        const res = await call('changelog.webhooks.create', { url, secret: SECRET, enabled: false }, admin)
        expect(res.status, `${url}: ${res.text}`).toBe(200)
      }
    })
  })
})

describe('outbound URLs when sent in production', () => {
  it.each([
    ['localtest.me', 'A', '127.0.0.1'],
    ['127.0.0.1.nip.io', 'A', '127.0.0.1'],
    ['10.0.0.1.sslip.io', 'A', '10.0.0.1'],
    ['metadata.rebind.example.com', 'A', '169.254.169.254'],
    ['v6-loopback.example.com', 'AAAA', '::1'],
    ['v6-mapped.example.com', 'AAAA', '::ffff:7f00:1'],
    ['v6-unique-local.example.com', 'AAAA', 'fd00::1'],
  ] as const)('should refuse a webhook to %s when it resolves to %s %s', async (host, type, address) => {
    const hits = receiver(`https://${host}`)
    new FakeDoh().install().set(host, type, [address])
    const target = await createTarget(`https://${host}/hook?token=SECRET-IN-QUERY`)
    const delivery = await deliverTo(target.id)
    expect(delivery.status).toBe('retrying')
    expect(delivery.lastError).toContain(host)
    expect(delivery.lastError).toContain(address)
    expect(delivery.lastError).not.toContain('SECRET-IN-QUERY')
    expect(hits).toHaveLength(0)
  })

  it('should deliver to a name that resolves to public addresses only', async () => {
    const hits = receiver('https://hooks.public.example.com')
    new FakeDoh().install().set('hooks.public.example.com', 'A', ['93.184.215.14'])
    const target = await createTarget('https://hooks.public.example.com/hook')
    expect(await deliverTo(target.id)).toMatchObject({ status: 'delivered', lastError: null })
    expect(hits).toHaveLength(1)
  })

  it('should fail closed when the resolver fails or the name does not resolve', async () => {
    const hits = receiver('https://hooks.down.example.com')
    const doh = new FakeDoh().install()
    doh.httpStatus = 503
    const target = await createTarget('https://hooks.down.example.com/hook')
    const down = await deliverTo(target.id)
    expect(down.status).toBe('retrying')
    expect(down.lastError).toMatch(/could not check where hooks\.down\.example\.com points/)
    expect(down.lastError).toContain('503')
    doh.httpStatus = null
    doh.set('hooks.down.example.com', 'A', [], 3).set('hooks.down.example.com', 'AAAA', [], 3)
    const missing = await deliverTo(target.id)
    expect(missing.status).toBe('retrying')
    expect(missing.lastError).toContain('hooks.down.example.com does not resolve')
    expect(hits).toHaveLength(0)
  })

  it.each([
    ['production', 'production'],
    ['absent', undefined],
    ['misspelled', 'prod'],
  ])(
    'should refuse a stored http://127.0.0.1 target at delivery once ENVIRONMENT is %s',
    async (_what, value) => {
      const hits = receiver('http://127.0.0.1:9999')
      const target = await withEnvironment('development', () => createTarget('http://127.0.0.1:9999/hook'))
      const delivery = await withEnvironment(value, () => deliverTo(target.id))
      expect(delivery.status).toBe('retrying')
      expect(delivery.lastError).toContain('must use https in production')
      expect(hits).toHaveLength(0)
      expect(outboundRequests().filter((r) => r.url.startsWith('http://127.0.0.1'))).toEqual([])
    },
  )

  it('should still deliver to a stored loopback target in development', async () => {
    const hits = receiver('http://127.0.0.1:9998')
    const target = await withEnvironment('development', () => createTarget('http://127.0.0.1:9998/hook'))
    expect(await withEnvironment('development', () => deliverTo(target.id))).toMatchObject({
      status: 'delivered',
    })
    expect(hits).toHaveLength(1)
  })

  it('should ask the configured resolver, which is operator configuration and exempt from the rule', async () => {
    const resolver = workerEnv.DOH_RESOLVER_URL
    workerEnv.DOH_RESOLVER_URL = 'http://127.0.0.1:5380/dns-query'
    try {
      const doh = new FakeDoh().install('http://127.0.0.1:5380')
      doh.set('hooks.own-resolver.example.com', 'A', ['93.184.215.14'])
      const hits = receiver('https://hooks.own-resolver.example.com')
      const target = await createTarget('https://hooks.own-resolver.example.com/hook')
      expect(await deliverTo(target.id)).toMatchObject({ status: 'delivered' })
      expect(hits).toHaveLength(1)
      const asked = outboundRequests().filter((r) => r.url.startsWith('http://127.0.0.1:5380/dns-query?'))
      expect(asked.map((r) => dohQuestion(r)?.name)).toContain('hooks.own-resolver.example.com')
    } finally {
      workerEnv.DOH_RESOLVER_URL = resolver
    }
  })
})

describe('every counterpart records the send-time refusal as its failure', () => {
  it('should record it as the mirror pull error', async () => {
    const hits = receiver('http://127.0.0.1:9997')
    await withEnvironment('development', () =>
      ok('changelog.mirror.set', { upstream: 'http://127.0.0.1:9997/feed' }, admin),
    )
    const pulled = await ok<{ lastStatus: string; lastError: string }>('changelog.mirror.pull', {}, admin)
    expect(pulled).toMatchObject({ lastStatus: 'failed' })
    expect(pulled.lastError).toContain('must use https in production')
    expect(hits).toHaveLength(0)
    await ok('changelog.mirror.set', { upstream: null }, admin)
  })

  it('should record it in lastTestState without the token, for a stored and for a resolved address', async () => {
    const stored = digitalOceanFake({ origin: 'http://127.0.0.1:9996' })
    fakeOrigin(stored.origin, stored.handle)
    const row = await withEnvironment('development', () =>
      ok<{ id: string }>(
        'accounts.create',
        {
          kind: 'dns',
          name: unique('stored'),
          provider: 'provider_b',
          token: stored.token,
          apiBaseUrl: stored.apiBaseUrl,
        },
        admin,
      ),
    )
    const served = outboundRequests().length
    const tested = await ok<{ ok: boolean; detail: string }>('accounts.test', { id: row.id }, admin)
    expect(tested.ok).toBe(false)
    expect(tested.detail).not.toContain(stored.token)
    expect(
      outboundRequests()
        .slice(served)
        .filter((r) => r.url.startsWith(stored.origin)),
    ).toEqual([])

    const rebound = digitalOceanFake({ origin: 'https://do-relay.rebind.example.com' })
    fakeOrigin(rebound.origin, rebound.handle)
    new FakeDoh().install().set('do-relay.rebind.example.com', 'A', ['10.9.8.7'])
    const created = await ok<{ lastTestState: { ok: boolean; detail: string } }>(
      'accounts.create',
      {
        kind: 'dns',
        name: unique('rebound'),
        provider: 'provider_b',
        token: rebound.token,
        apiBaseUrl: rebound.apiBaseUrl,
      },
      admin,
    )
    expect(created.lastTestState.ok).toBe(false)
    expect(created.lastTestState.detail).not.toContain(rebound.token)
    expect(outboundRequests().filter((r) => r.url.startsWith(rebound.origin))).toEqual([])
  })

  it('should answer 502 naming the refusal when a node agent resolves inward, and send it nothing', async () => {
    const agentUrl = `https://${unique('agent')}.boxes.example.com`
    const input = {
      name: unique('ns'),
      hostname: `${unique('ns')}.example.com`,
      publicIpv4: '8.8.4.4',
      agentUrl,
      agentSecret: AGENT_SECRET,
    }
    const row = await ok<{ id: string }>('dnsServers.nameservers.enroll', input, admin)
    const agent = new FakeNodeAgent(agentUrl, AGENT_SECRET, 'https://pdns-never.boxes.example.com').install()
    new FakeDoh().install().set(new URL(agentUrl).hostname, 'A', ['127.0.0.1'])
    const res = await call('dnsServers.nameservers.installPowerDns', { id: row.id }, admin)
    expect(res.status, res.text).toBe(502)
    expect(res.text).toContain('127.0.0.1')
    expect(res.text).not.toContain(AGENT_SECRET)
    expect(agent.calls).toEqual([])
  })

  it('should answer 502 naming the refusal when a PowerDNS API resolves inward, and send it nothing', async () => {
    const box = new FakePowerDns(`https://${unique('pdns')}.boxes.example.com`, API_KEY).install()
    new FakeDoh().install().set(new URL(box.apiUrl).hostname, 'AAAA', ['fe80::1'])
    const res = await call(
      'dnsServers.nameservers.enroll',
      {
        name: unique('ns'),
        hostname: `${unique('ns')}.example.com`,
        publicIpv4: '8.8.4.4',
        agentUrl: `https://${unique('agent')}.boxes.example.com`,
        agentSecret: AGENT_SECRET,
        powerDns: { apiUrl: box.apiUrl, apiKey: API_KEY },
      },
      admin,
    )
    expect(res.status, res.text).toBe(502)
    expect(res.text).toContain('fe80::1')
    expect(res.text).not.toContain(API_KEY)
    expect(box.served).toBe(0)
  })
})
