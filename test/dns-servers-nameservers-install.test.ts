import { describe, expect, it } from 'vitest'
import { AGENT_SECRET, admin, enrollInput, type NameserverRow } from './dns-servers/nameservers-fixture'
import { FakeNodeAgent } from './fakes/node-agent'
import { call, ok } from './helpers/http'

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
