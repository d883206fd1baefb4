import { beforeAll, describe, expect, it } from 'vitest'
import { type Caller, call, ok } from './helpers/http'
import { adminSession, operatorSession } from './helpers/principals'

let admin: Caller

const node = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  agentUrl: 'https://agent.example.test:8443',
  agentSecret: 'agent-secret-0123456789',
  publicIpv4: '192.0.2.10',
  ...extra,
})

beforeAll(async () => {
  admin = await adminSession()
})

describe('nodes', () => {
  it('should create a node that shows hasAgentSecret and never the secret', async () => {
    const row = await ok<Record<string, unknown>>(
      'nodes.create',
      node('n1', { publicIpv6: '2001:db8::1', dnsTarget: 'n1.example.test' }),
      admin,
    )
    expect(Object.keys(row).sort()).toEqual(
      [
        'agentHostname',
        'agentUrl',
        'checkAllowCidrs',
        'createdAt',
        'dnsTarget',
        'hasAgentSecret',
        'health',
        'id',
        'name',
        'publicIpv4',
        'publicIpv6',
        'roles',
        'updatedAt',
      ].sort(),
    )
    expect(row).toMatchObject({
      roles: ['host'],
      hasAgentSecret: true,
      publicIpv6: '2001:db8::1',
      checkAllowCidrs: [],
    })
    // Never checked yet.
    expect(row.health).toEqual({
      state: 'unknown',
      checkedAt: null,
      lastSeenAt: null,
      agentVersion: null,
      appliedConfigVersion: null,
      error: null,
    })
    const got = await ok<Record<string, unknown>>('nodes.get', { id: row.id }, admin)
    expect(got).toEqual(row)
  })

  it('should list newest first, 404 unknown ids, and 409 a duplicate name', async () => {
    const a = await ok<{ id: string }>('nodes.create', node('list-a'), admin)
    const b = await ok<{ id: string }>('nodes.create', node('list-b'), admin)
    const list = await ok<{ id: string }[]>('nodes.list', {}, admin)
    expect(list.slice(0, 2).map((n) => n.id)).toEqual([b.id, a.id])
    expect((await call('nodes.get', { id: 'missing' }, admin)).status).toBe(404)
    const dup = await call('nodes.create', node('list-a'), admin)
    expect(dup.status, dup.text).toBe(409)
  })

  it('should validate addresses and the agent URL, naming the field', async () => {
    const res = await call<{ issues: { path: string }[] }>(
      'nodes.create',
      node('bad', { publicIpv4: '999.1.1.1', agentUrl: 'ftp://agent' }),
      admin,
    )
    expect(res.status, res.text).toBe(400)
    expect(res.body.issues.map((i) => i.path).sort()).toEqual(['agentUrl', 'publicIpv4'])
  })

  it('should update fields and refuse the nameserver role while instances remain', async () => {
    const n = await ok<{ id: string; updatedAt: string }>('nodes.create', node('upd'), admin)
    const updated = await ok<{ name: string; dnsTarget: string | null }>(
      'nodes.update',
      { id: n.id, name: 'upd-2', dnsTarget: null },
      admin,
    )
    expect(updated).toMatchObject({ name: 'upd-2', dnsTarget: null })
    await ok('instances.create', { nodeId: n.id, name: 'i', address: '10.0.0.2' }, admin)
    const role = await call('nodes.update', { id: n.id, roles: ['nameserver'] }, admin)
    expect(role.status, role.text).toBe(409)
  })
})

describe('instances and sites', () => {
  it('should chain node → instance → site with UUID site ids and guarded removal', async () => {
    const n = await ok<{ id: string }>('nodes.create', node('chain'), admin)
    const inst = await ok<{ id: string; nodeId: string }>(
      'instances.create',
      { nodeId: n.id, name: 'web', address: '10.0.0.5' },
      admin,
    )
    expect(inst.nodeId).toBe(n.id)
    const site = await ok<{ id: string; port: number | null }>(
      'sites.create',
      { instanceId: inst.id, name: 'shop', port: 3000 },
      admin,
    )
    expect(site.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect(site.port).toBe(3000)
    expect(
      (await ok<{ id: string }[]>('sites.list', { instanceId: inst.id }, admin)).map((s) => s.id),
    ).toEqual([site.id])
    expect((await ok<{ id: string }[]>('instances.list', { nodeId: n.id }, admin)).map((i) => i.id)).toEqual([
      inst.id,
    ])

    expect((await call('nodes.remove', { id: n.id }, admin)).status).toBe(409)
    expect((await call('instances.remove', { id: inst.id }, admin)).status).toBe(409)
    await ok('sites.remove', { id: site.id }, admin)
    expect((await call('sites.get', { id: site.id }, admin)).status).toBe(404)
    await ok('instances.remove', { id: inst.id }, admin)
    await ok('nodes.remove', { id: n.id }, admin)
    expect((await call('nodes.get', { id: n.id }, admin)).status).toBe(404)
  })

  it('should refuse an instance on a nameserver node and 404 unknown parents', async () => {
    const ns = await ok<{ id: string }>('nodes.create', node('ns', { roles: ['nameserver'] }), admin)
    const res = await call('instances.create', { nodeId: ns.id, name: 'web', address: '10.0.0.9' }, admin)
    expect(res.status, res.text).toBe(409)
    expect((await call('instances.create', { nodeId: 'nope', name: 'w', address: 'a' }, admin)).status).toBe(
      404,
    )
    expect((await call('sites.create', { instanceId: 'nope', name: 's' }, admin)).status).toBe(404)
  })

  it('should keep an enrolled nameserver out of hosting and out of plain node removal', async () => {
    const ns = await ok<{ id: string }>(
      'dnsServers.nameservers.enroll',
      {
        name: 'fleet-ns',
        hostname: 'ns1.fleet.test',
        publicIpv4: '192.0.2.53',
        agentUrl: 'https://agent.fleet.test',
        agentSecret: 'agent-secret-0123456789',
      },
      admin,
    )
    const toHost = await call('nodes.update', { id: ns.id, roles: ['host'] }, admin)
    expect(toHost.status, toHost.text).toBe(409)
    expect((await call('nodes.remove', { id: ns.id }, admin)).status).toBe(409)
    expect((await call('instances.create', { nodeId: ns.id, name: 'w', address: 'a' }, admin)).status).toBe(
      409,
    )
  })

  it('should refuse an agent URL the panel may not call in production, naming the field', async () => {
    const res = await call<{ issues: { path: string; message: string }[] }>(
      'nodes.create',
      node('loopback', { agentUrl: 'http://127.0.0.1:9000' }),
      admin,
    )
    expect(res.status, res.text).toBe(400)
    expect(res.body.issues[0]?.path).toBe('agentUrl')
  })

  it('should let an operator read the fleet but not change it', async () => {
    const operator = await operatorSession(admin)
    expect((await call('nodes.list', {}, operator)).status).toBe(200)
    const res = await call('nodes.create', node('op'), operator)
    expect(res.status, res.text).toBe(403)
  })
})

describe('audit', () => {
  it('should record every mutation with principal, target, outcome and request id, newest first', async () => {
    const res = await call<{ id: string }>('nodes.create', node('audited'), admin)
    const requestId = res.headers.get('x-request-id')
    const page = await ok<{
      entries: {
        action: string
        targetId: string
        outcome: string
        requestId: string
        principal: { kind: string }
      }[]
    }>('audit.list', { targetId: res.body.id }, admin)
    expect(page.entries).toHaveLength(1)
    expect(page.entries[0]).toMatchObject({
      action: 'node.create',
      outcome: 'success',
      requestId,
      principal: { kind: 'session' },
    })
  })

  it('should page with a cursor and filter by action', async () => {
    for (const name of ['p1', 'p2', 'p3']) await ok('nodes.create', node(name), admin)
    const first = await ok<{ entries: { id: number }[]; nextCursor: string | null }>(
      'audit.list',
      { action: 'node.create', limit: 2 },
      admin,
    )
    expect(first.entries).toHaveLength(2)
    expect(first.nextCursor).not.toBeNull()
    const second = await ok<{ entries: { id: number }[] }>(
      'audit.list',
      { action: 'node.create', limit: 2, cursor: first.nextCursor },
      admin,
    )
    const ids = [...first.entries, ...second.entries].map((e) => e.id)
    expect(ids).toEqual([...ids].sort((x, y) => y - x))
    expect(new Set(ids).size).toBe(ids.length)
  })

  it('should record failed sign-ins', async () => {
    await call('auth.login', { email: 'ghost@panel.test', password: 'wrong-password' })
    const page = await ok<{ entries: { outcome: string; detail: { email: string } }[] }>(
      'audit.list',
      { action: 'auth.login' },
      admin,
    )
    expect(page.entries.find((e) => e.outcome === 'failure')?.detail.email).toBe('ghost@panel.test')
  })
})
