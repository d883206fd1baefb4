import { env } from 'cloudflare:workers'
import { beforeEach, describe, expect, it } from 'vitest'
import { captureJobs, runZoneSync, type SentJob } from './dns-servers/run-job'
import { FakeDoh } from './fakes/doh'
import { FakeNodeAgent } from './fakes/node-agent'
import { FakePowerDns } from './fakes/powerdns'
import { type Caller, call, ok } from './helpers/http'
import { outboundRequests } from './helpers/outbound'
import { adminSession, operatorSession } from './helpers/principals'

// A marker that must never come back in any response once the panel holds it.
const API_KEY = 'pdns-api-key-MARKER-7f3a9c'
const AGENT_SECRET = 'agent-secret-MARKER-0123456789'

interface NameserverRow {
  id: string
  name: string
  hostname: string
  powerDns: { apiUrl: string; serverId: string; hasApiKey: true } | null
  health: { checkedAt: string | null; ok: boolean | null; detail: string | null }
}

let admin: Caller
let sent: SentJob[]
let counter = 0

function enrollInput(powerDns?: { apiUrl: string; apiKey: string; serverId?: string }) {
  counter++
  return {
    name: `dns-box-${counter}-${crypto.randomUUID().slice(0, 6)}`,
    hostname: `ns${counter}.boxes-${crypto.randomUUID().slice(0, 6)}.test`,
    publicIpv4: `198.51.100.${counter}`,
    publicIpv6: `2001:db8::${counter}`,
    agentUrl: `https://agent-${counter}.boxes.test`,
    agentSecret: AGENT_SECRET,
    ...(powerDns ? { powerDns } : {}),
  }
}

function freshBox(): FakePowerDns {
  return new FakePowerDns(`https://pdns-${crypto.randomUUID().slice(0, 8)}.boxes.test`, API_KEY).install()
}

async function nameserverCount(): Promise<number> {
  return (await ok<unknown[]>('dnsServers.nameservers.list', {}, admin)).length
}

beforeEach(async () => {
  sent = captureJobs()
  admin = await adminSession()
})

describe('dnsServers.nameservers.enroll', () => {
  it('should enroll a node with the nameserver role that refuses instances', async () => {
    const input = enrollInput()
    const row = await ok<NameserverRow>('dnsServers.nameservers.enroll', input, admin)
    expect(row).toMatchObject({
      name: input.name,
      hostname: input.hostname,
      powerDns: null,
      hasAgentSecret: true,
    })
    expect(row.health).toEqual({ checkedAt: null, ok: null, detail: null })
    const node = await ok<{ roles: string[] }>('nodes.get', { id: row.id }, admin)
    expect(node.roles).toEqual(['nameserver'])
    const instance = await call(
      'instances.create',
      { nodeId: row.id, name: 'web', address: '10.0.0.5' },
      admin,
    )
    expect(instance.status, instance.text).toBe(409)
    expect(await ok<NameserverRow>('dnsServers.nameservers.get', { id: row.id }, admin)).toEqual(row)
  })

  it('should adopt a running PowerDNS only after it answers, and never return its key', async () => {
    const box = freshBox()
    const row = await ok<NameserverRow>(
      'dnsServers.nameservers.enroll',
      enrollInput({ apiUrl: box.apiUrl, apiKey: API_KEY }),
      admin,
    )
    expect(row.powerDns).toEqual({ apiUrl: box.apiUrl, serverId: 'localhost', hasApiKey: true })
    expect(box.served).toBeGreaterThan(0)
    expect(outboundRequests()[0]?.headers.get('x-api-key')).toBe(API_KEY)

    const responses = [
      await call('dnsServers.nameservers.list', {}, admin),
      await call('dnsServers.nameservers.get', { id: row.id }, admin),
      await call('nodes.list', {}, admin),
      await call('audit.list', { targetId: row.id }, admin),
    ]
    for (const response of responses) {
      expect(response.status, response.text).toBe(200)
      expect(response.text).not.toContain('MARKER')
    }
    const stored = await env.DB.prepare(
      'SELECT powerdns_api_key_sealed AS key FROM nameservers WHERE node_id = ?',
    )
      .bind(row.id)
      .first<{ key: string }>()
    expect(stored?.key).toMatch(/^v1\./)
    expect(stored?.key).not.toContain('MARKER')
    const audit = await ok<{ entries: { action: string }[] }>('audit.list', { targetId: row.id }, admin)
    expect(audit.entries.map((e) => e.action)).toEqual(['nameserver.enroll'])
  })

  it('should refuse a PowerDNS that rejects the key, lacks the server or does not answer, writing nothing', async () => {
    const box = freshBox()
    const before = await nameserverCount()
    const wrongKey = await call(
      'dnsServers.nameservers.enroll',
      enrollInput({ apiUrl: box.apiUrl, apiKey: 'not-the-key' }),
      admin,
    )
    expect(wrongKey.status, wrongKey.text).toBe(400)
    expect(wrongKey.body).toMatchObject({ issues: [{ path: 'powerDns.apiKey' }] })
    const wrongServer = await call(
      'dnsServers.nameservers.enroll',
      enrollInput({ apiUrl: box.apiUrl, apiKey: API_KEY, serverId: 'elsewhere' }),
      admin,
    )
    expect(wrongServer.status, wrongServer.text).toBe(400)
    expect(wrongServer.body).toMatchObject({ issues: [{ path: 'powerDns.serverId' }] })
    box.down = true
    const down = await call(
      'dnsServers.nameservers.enroll',
      enrollInput({ apiUrl: box.apiUrl, apiKey: API_KEY }),
      admin,
    )
    expect(down.status, down.text).toBe(502)
    expect(await nameserverCount()).toBe(before)
  })

  it('should answer 400 naming the field for bad or unknown input, and 409 for a taken name or host name', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ ...enrollInput(), publicIpv4: '300.1.1.1' }, 'publicIpv4'],
      [{ ...enrollInput(), publicIpv6: 'nope' }, 'publicIpv6'],
      [{ ...enrollInput(), hostname: 'Not A Host' }, 'hostname'],
      [{ ...enrollInput(), powerDns: { apiUrl: 'ftp://x.test', apiKey: 'k' } }, 'powerDns.apiUrl'],
      [{ ...enrollInput(), roles: ['host'] }, 'roles'],
    ]
    for (const [input, path] of cases) {
      const response = await call('dnsServers.nameservers.enroll', input, admin)
      expect(response.status, response.text).toBe(400)
      expect(response.body, path).toMatchObject({ issues: [{ path }] })
    }
    const first = enrollInput()
    await ok('dnsServers.nameservers.enroll', first, admin)
    const sameName = await call(
      'dnsServers.nameservers.enroll',
      { ...enrollInput(), name: first.name },
      admin,
    )
    expect(sameName.status, sameName.text).toBe(409)
    const sameHost = await call(
      'dnsServers.nameservers.enroll',
      { ...enrollInput(), hostname: first.hostname },
      admin,
    )
    expect(sameHost.status, sameHost.text).toBe(409)
  })

  it('should give a box enrolled after a zone exists that zone, through the queue job', async () => {
    const first = freshBox()
    await ok('dnsServers.nameservers.enroll', enrollInput({ apiUrl: first.apiUrl, apiKey: API_KEY }), admin)
    const zone = await ok<{ id: string; name: string }>(
      'dnsServers.zones.create',
      { name: `late-${crypto.randomUUID().slice(0, 6)}.test` },
      admin,
    )
    await ok(
      'dnsServers.zones.upsertRecord',
      { id: zone.id, name: `www.${zone.name}`, type: 'A', ttl: 300, values: ['192.0.2.5'] },
      admin,
    )
    const second = freshBox()
    const row = await ok<NameserverRow>(
      'dnsServers.nameservers.enroll',
      enrollInput({ apiUrl: second.apiUrl, apiKey: API_KEY }),
      admin,
    )
    const job = sent.find((s) => s.body.type === 'dns.zone-sync' && s.body.nodeId === row.id)
    expect(job).toEqual({ body: { type: 'dns.zone-sync', zoneId: zone.id, nodeId: row.id }, delaySeconds: 0 })
    const pending = await ok<{ boxes: { nodeId: string; state: string }[] }>(
      'dnsServers.zones.get',
      { id: zone.id },
      admin,
    )
    expect(pending.boxes.find((b) => b.nodeId === row.id)?.state).toBe('pending')
    expect(await runZoneSync(zone.id, row.id)).toEqual({ acked: true, retryDelay: null })
    expect(second.lookup(`www.${zone.name}`, 'A')).toEqual(['192.0.2.5'])
    const synced = await ok<{ boxes: { nodeId: string; state: string }[] }>(
      'dnsServers.zones.get',
      { id: zone.id },
      admin,
    )
    expect(synced.boxes.find((b) => b.nodeId === row.id)?.state).toBe('synced')
  })
})

describe('dnsServers.nameservers.installPowerDns', () => {
  it("should have the node agent install PowerDNS with a fresh key, signed with the node's secret", async () => {
    const input = enrollInput()
    const row = await ok<NameserverRow>('dnsServers.nameservers.enroll', input, admin)
    const agent = new FakeNodeAgent(
      input.agentUrl,
      AGENT_SECRET,
      'https://pdns-installed.boxes.test',
    ).install()
    const response = await call('dnsServers.nameservers.installPowerDns', { id: row.id }, admin)
    expect(response.status, response.text).toBe(200)
    expect(response.body).toMatchObject({
      powerDns: { apiUrl: 'https://pdns-installed.boxes.test', serverId: 'localhost', hasApiKey: true },
    })
    expect(agent.calls).toHaveLength(1)
    const { apiKey } = (agent.calls[0]?.body ?? {}) as { apiKey?: string }
    expect(apiKey).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(response.text).not.toContain(apiKey ?? 'no key sent')
    // The panel then talks to the installed PowerDNS with that key.
    expect(agent.powerDns?.served).toBeGreaterThan(0)
    const list = await call('dnsServers.nameservers.list', {}, admin)
    expect(list.text).not.toContain(apiKey ?? 'no key sent')
    expect(list.text).not.toContain('MARKER')
  })

  it('should answer 502 and keep the box without PowerDNS when the agent fails', async () => {
    const input = enrollInput()
    const row = await ok<NameserverRow>('dnsServers.nameservers.enroll', input, admin)
    const agent = new FakeNodeAgent(input.agentUrl, AGENT_SECRET, 'https://pdns-never.boxes.test').install()
    agent.failWith = { status: 500, body: '{"error":"apt-get failed"}' }
    const response = await call('dnsServers.nameservers.installPowerDns', { id: row.id }, admin)
    expect(response.status, response.text).toBe(502)
    expect(response.text).toContain('apt-get failed')
    expect((await ok<NameserverRow>('dnsServers.nameservers.get', { id: row.id }, admin)).powerDns).toBeNull()
  })

  it('should answer 502 when the agent signs with another secret than the node holds', async () => {
    const input = enrollInput()
    const row = await ok<NameserverRow>('dnsServers.nameservers.enroll', input, admin)
    new FakeNodeAgent(input.agentUrl, 'a-different-secret-0123456789', 'https://pdns-x.boxes.test').install()
    const response = await call('dnsServers.nameservers.installPowerDns', { id: row.id }, admin)
    expect(response.status, response.text).toBe(502)
    expect(response.text).toContain('401')
  })
})

describe('outbound addresses and what counterparts say', () => {
  it('should refuse agent and PowerDNS URLs production may not call, naming the field and calling nothing', async () => {
    const before = await nameserverCount()
    const cases: [Record<string, unknown>, string][] = [
      [{ ...enrollInput(), agentUrl: 'http://agent.boxes.test' }, 'agentUrl'],
      [{ ...enrollInput(), agentUrl: 'https://10.1.2.3' }, 'agentUrl'],
      [enrollInput({ apiUrl: 'http://pdns.boxes.test:8081', apiKey: API_KEY }), 'powerDns.apiUrl'],
      [enrollInput({ apiUrl: 'https://127.0.0.1:8081', apiKey: API_KEY }), 'powerDns.apiUrl'],
      [enrollInput({ apiUrl: 'https://[::1]:8081', apiKey: API_KEY }), 'powerDns.apiUrl'],
    ]
    for (const [input, path] of cases) {
      const response = await call('dnsServers.nameservers.enroll', input, admin)
      expect(response.status, response.text).toBe(400)
      expect(response.body, path).toMatchObject({ issues: [{ path }] })
    }
    expect(outboundRequests()).toEqual([])
    expect(await nameserverCount()).toBe(before)
  })

  it('should answer 502 and store nothing when the agent reports a PowerDNS URL the panel may not call', async () => {
    const input = enrollInput()
    const row = await ok<NameserverRow>('dnsServers.nameservers.enroll', input, admin)
    const agent = new FakeNodeAgent(
      input.agentUrl,
      AGENT_SECRET,
      'http://pdns-plain.boxes.test:8081',
    ).install()
    const response = await call('dnsServers.nameservers.installPowerDns', { id: row.id }, admin)
    expect(response.status, response.text).toBe(502)
    expect(response.text).toContain('the node agent reported a PowerDNS API URL (pdns-plain.boxes.test:8081)')
    expect(response.text).toContain('may not call: it must use https in production')
    // The key went to the agent, which made it; it never went to the address the agent named.
    expect(agent.powerDns?.served).toBe(0)
    expect((await ok<NameserverRow>('dnsServers.nameservers.get', { id: row.id }, admin)).powerDns).toBeNull()
  })

  it("should quote only 200 characters of PowerDNS's JSON error, none of a plain body, and never the key", async () => {
    const box = freshBox()
    const enroll = () =>
      call('dnsServers.nameservers.enroll', enrollInput({ apiUrl: box.apiUrl, apiKey: API_KEY }), admin)
    box.answer = () => Response.json({ error: `disk full ${'x'.repeat(1000)}` }, { status: 500 })
    const long = await enroll()
    expect(long.status, long.text).toBe(502)
    expect(long.text).toContain('PowerDNS answered 500: disk full x')
    expect(long.text).toContain(`${'x'.repeat(190)}…`)
    expect(long.text).not.toContain('x'.repeat(200))
    box.answer = () => new Response(`<html>stack trace ${'y'.repeat(50)}</html>`, { status: 500 })
    const page = await enroll()
    expect(page.status, page.text).toBe(502)
    expect(page.text).toContain('PowerDNS answered 500')
    expect(page.text).not.toContain('stack trace')
    box.answer = (request) =>
      Response.json({ error: `key ${request.headers.get('x-api-key')} is bad` }, { status: 500 })
    const echoed = await enroll()
    expect(echoed.status, echoed.text).toBe(502)
    expect(echoed.text).toContain('PowerDNS answered 500')
    expect(echoed.text).not.toContain('MARKER')
  })

  it('should never repeat the key it generated when the node agent echoes it back', async () => {
    const input = enrollInput()
    const row = await ok<NameserverRow>('dnsServers.nameservers.enroll', input, admin)
    const agent = new FakeNodeAgent(input.agentUrl, AGENT_SECRET, 'https://pdns-echo.boxes.test').install()
    agent.failWith = { status: 400, body: (apiKey) => JSON.stringify({ error: `rejected key ${apiKey}` }) }
    const response = await call('dnsServers.nameservers.installPowerDns', { id: row.id }, admin)
    expect(response.status, response.text).toBe(502)
    const { apiKey } = (agent.calls[0]?.body ?? {}) as { apiKey?: string }
    expect(apiKey).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(response.text).toContain('the node agent answered 400')
    expect(response.text).not.toContain(apiKey ?? 'no key sent')
    agent.failWith = { status: 500, body: `apt-get failed: ${'z'.repeat(1000)}` }
    const long = await call('dnsServers.nameservers.installPowerDns', { id: row.id }, admin)
    expect(long.status, long.text).toBe(502)
    expect(long.text).toContain('apt-get failed: z')
    expect(long.text).not.toContain('z'.repeat(200))
  })
})

describe('counterpart echoes of a secret', () => {
  it('should withhold a PowerDNS error that repeats 8 characters of the key, in any letter case', async () => {
    const box = freshBox()
    const enroll = () =>
      call('dnsServers.nameservers.enroll', enrollInput({ apiUrl: box.apiUrl, apiKey: API_KEY }), admin)
    for (const echo of [API_KEY.slice(5, 14), API_KEY.toUpperCase()]) {
      box.answer = () => Response.json({ error: `Invalid API key ${echo}` }, { status: 500 })
      const response = await enroll()
      expect(response.status, response.text).toBe(502)
      expect(response.text).toContain('PowerDNS answered 500')
      expect(response.text.toLowerCase()).not.toContain(API_KEY.slice(6, 14).toLowerCase())
    }
  })

  it('should withhold an agent error that repeats part of the generated key, and read no more than a message', async () => {
    const input = enrollInput()
    const row = await ok<NameserverRow>('dnsServers.nameservers.enroll', input, admin)
    const agent = new FakeNodeAgent(input.agentUrl, AGENT_SECRET, 'https://pdns-part.boxes.test').install()
    agent.failWith = {
      status: 500,
      body: (apiKey) =>
        JSON.stringify({ error: `install failed for key ${apiKey.slice(0, 30).toUpperCase()}` }),
    }
    const partial = await call('dnsServers.nameservers.installPowerDns', { id: row.id }, admin)
    expect(partial.status, partial.text).toBe(502)
    const { apiKey } = (agent.calls[0]?.body ?? {}) as { apiKey?: string }
    expect(partial.text).toContain('the node agent answered 500')
    expect(partial.text.toLowerCase()).not.toContain((apiKey ?? 'no key sent').slice(0, 8).toLowerCase())
    agent.failWith = { status: 500, body: `apt-get failed: ${'z'.repeat(200_000)}` }
    const huge = await call('dnsServers.nameservers.installPowerDns', { id: row.id }, admin)
    expect(huge.status, huge.text).toBe(502)
    expect(huge.text).toContain('apt-get failed: z')
    expect(huge.text.length).toBeLessThan(2000)
  })
})

describe('dnsServers.nameservers.verifyGlue', () => {
  it('should record a matching glue check as the NS-health, and a mismatch with its detail', async () => {
    const input = enrollInput()
    const row = await ok<NameserverRow>('dnsServers.nameservers.enroll', input, admin)
    const doh = new FakeDoh().install()
    doh
      .set(input.hostname, 'A', [input.publicIpv4])
      .set(input.hostname, 'AAAA', [`2001:0db8:0:0::${counter}`])
    const good = await ok<{ ok: boolean; expected: string[]; found: string[] }>(
      'dnsServers.nameservers.verifyGlue',
      { id: row.id },
      admin,
    )
    expect(good).toMatchObject({ ok: true, expected: [input.publicIpv4, input.publicIpv6].sort() })
    doh.set(input.hostname, 'A', ['203.0.113.9'])
    const bad = await ok<{ ok: boolean; detail: string }>(
      'dnsServers.nameservers.verifyGlue',
      { id: row.id },
      admin,
    )
    expect(bad.ok).toBe(false)
    expect(bad.detail).toContain(`missing ${input.publicIpv4}`)
    expect(bad.detail).toContain('unexpected 203.0.113.9')
    expect(bad.detail).toContain(`the A and AAAA records a recursive resolver returns for ${input.hostname}`)
    expect(bad.detail).toContain("not the registrar's glue")
    const listed = (await ok<NameserverRow[]>('dnsServers.nameservers.list', {}, admin)).find(
      (r) => r.id === row.id,
    )
    expect(listed?.health).toMatchObject({ ok: false, detail: bad.detail })
    expect(listed?.health.checkedAt).toEqual(expect.any(String))
  })

  it('should answer 502 without recording anything when the resolver fails', async () => {
    const row = await ok<NameserverRow>('dnsServers.nameservers.enroll', enrollInput(), admin)
    const doh = new FakeDoh().install()
    doh.httpStatus = 503
    const response = await call('dnsServers.nameservers.verifyGlue', { id: row.id }, admin)
    expect(response.status, response.text).toBe(502)
    expect(
      (await ok<NameserverRow>('dnsServers.nameservers.get', { id: row.id }, admin)).health.checkedAt,
    ).toBeNull()
  })
})

describe('dnsServers.nameservers.remove', () => {
  it('should remove the box and its node', async () => {
    const row = await ok<NameserverRow>('dnsServers.nameservers.enroll', enrollInput(), admin)
    expect(await ok('dnsServers.nameservers.remove', { id: row.id }, admin)).toEqual({ removed: true })
    expect((await call('dnsServers.nameservers.get', { id: row.id }, admin)).status).toBe(404)
    expect((await call('nodes.get', { id: row.id }, admin)).status).toBe(404)
    expect((await call('dnsServers.nameservers.remove', { id: row.id }, admin)).status).toBe(404)
  })

  it('should refuse to remove an enrolled nameserver through nodes.remove, which would skip its guards', async () => {
    const row = await ok<NameserverRow>('dnsServers.nameservers.enroll', enrollInput(), admin)
    const res = await call<{ detail: string }>('nodes.remove', { id: row.id }, admin)
    expect(res.status, res.text).toBe(409)
    expect(res.body.detail).toContain('dnsServers.nameservers.remove')
    expect((await call('dnsServers.nameservers.get', { id: row.id }, admin)).status).toBe(200)
  })

  it('should refuse to remove the only synced box of a zone whose other box is behind', async () => {
    const up = freshBox()
    const down = freshBox()
    const upRow = await ok<NameserverRow>(
      'dnsServers.nameservers.enroll',
      enrollInput({ apiUrl: up.apiUrl, apiKey: API_KEY }),
      admin,
    )
    await ok('dnsServers.nameservers.enroll', enrollInput({ apiUrl: down.apiUrl, apiKey: API_KEY }), admin)
    down.down = true
    await ok('dnsServers.zones.create', { name: `keep-${crypto.randomUUID().slice(0, 6)}.test` }, admin)
    const response = await call('dnsServers.nameservers.remove', { id: upRow.id }, admin)
    expect(response.status, response.text).toBe(409)
    expect(response.text).toContain('only synced')
  })
})

describe('dnsServers.nameservers permissions', () => {
  it('should let an operator read and answer 403 to every change', async () => {
    const row = await ok<NameserverRow>('dnsServers.nameservers.enroll', enrollInput(), admin)
    const operator = await operatorSession(admin)
    expect((await call('dnsServers.nameservers.list', {}, operator)).status).toBe(200)
    expect((await call('dnsServers.nameservers.get', { id: row.id }, operator)).status).toBe(200)
    const writes: [string, unknown][] = [
      ['dnsServers.nameservers.enroll', enrollInput()],
      ['dnsServers.nameservers.installPowerDns', { id: row.id }],
      ['dnsServers.nameservers.verifyGlue', { id: row.id }],
      ['dnsServers.nameservers.remove', { id: row.id }],
    ]
    for (const [name, input] of writes) {
      const response = await call(name, input, operator)
      expect(response.status, `${name}: ${response.text}`).toBe(403)
    }
    expect(await ok<NameserverRow>('dnsServers.nameservers.get', { id: row.id }, admin)).toMatchObject({
      id: row.id,
    })
  })
})
