import { env } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import {
  API_KEY,
  admin,
  enrollInput,
  freshBox,
  type NameserverRow,
  nameserverCount,
  sent,
} from './dns-servers/nameservers-fixture'
import { runZoneSync } from './dns-servers/run-job'
import { call, ok } from './helpers/http'
import { outboundRequests } from './helpers/outbound'

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
