import { describe, expect, it } from 'vitest'
import {
  AGENT_SECRET,
  API_KEY,
  admin,
  enrollInput,
  freshBox,
  type NameserverRow,
  nameserverCount,
} from './dns-servers/nameservers-fixture'
import { FakeNodeAgent } from './fakes/node-agent'
import { call, ok } from './helpers/http'
import { outboundRequests } from './helpers/outbound'

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
