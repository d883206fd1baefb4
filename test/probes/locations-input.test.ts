import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { FIXTURE_AGENT_SECRET } from '../helpers/agent-callback'
import { type Caller, call, ok } from '../helpers/http'
import { fakeOrigin } from '../helpers/outbound'
import { adminSession } from '../helpers/principals'
import { raced } from '../helpers/races'
import { type CreatedProbe, createProbe, type Probe, probeRecord, STATUS_ORIGIN } from './catalogue-fixture'

// A probe's `location`: where its checks run — the edge, a node of the panel, or up to five of them. Input
// errors name the field; a node that probes check from cannot be removed.

let admin: Caller
let nodeCount = 0

beforeAll(async () => {
  admin = await adminSession()
})

beforeEach(() => {
  // A sub-minute probe's monitor checks at once, from its own alarm.
  fakeOrigin(STATUS_ORIGIN, () => new Response('ok'))
})

type Located = Probe & { location: string | string[] | null }

/** A node; `checkAllowCidrs` opens private ranges to its checks (the node rule: locations-node-rule.test.ts). */
async function node(checkAllowCidrs: string[] = []): Promise<{ id: string; name: string }> {
  const n = ++nodeCount
  return ok<{ id: string; name: string }>(
    'nodes.create',
    {
      name: `locations-node-${n}-${crypto.randomUUID().slice(0, 8)}`,
      agentUrl: `https://agent-${n}.locations-example.com`,
      agentSecret: FIXTURE_AGENT_SECRET,
      checkAllowCidrs,
    },
    admin,
  )
}

const create = (fields: Record<string, unknown>) =>
  call<Located & { issues?: { path: string; message: string }[] }>(
    'probes.create',
    { name: 'located', type: 'http', targetKind: 'external', target: `${STATUS_ORIGIN}/`, ...fields },
    admin,
  )

const issuePaths = (body: { issues?: { path: string }[] }) => (body.issues ?? []).map((i) => i.path)

describe('probes.create with a location', () => {
  it('should check from the edge by default, and read the location back as set', async () => {
    const plain = await createProbe(admin)
    expect((plain as CreatedProbe & Located).location).toBe('edge')
    const [a, b] = [await node(), await node()]
    const one = await create({ location: a.id })
    expect(one.status, one.text).toBe(200)
    expect(one.body.location).toBe(a.id)
    const several = await create({ location: ['edge', a.id, b.id] })
    expect(several.status, several.text).toBe(200)
    expect(several.body.location).toEqual(['edge', a.id, b.id])
    // An array of one is one location.
    const single = await create({ location: [b.id] })
    expect(single.body.location).toBe(b.id)
    expect((await probeRecord(several.body.id))?.locations).toEqual(['edge', a.id, b.id])
    const read = await ok<Located>('probes.get', { id: several.body.id }, admin)
    expect(read.location).toEqual(['edge', a.id, b.id])
  })

  it('should answer 404 naming location for a node the panel does not have, and write nothing', async () => {
    const a = await node()
    const unknown = await create({ name: 'nowhere', location: ['edge', a.id, 'no-such-node'] })
    expect(unknown.status, unknown.text).toBe(404)
    expect(issuePaths(unknown.body)).toEqual(['location'])
    expect(unknown.text).toContain('no-such-node')
    const listed = await ok<Located[]>('probes.list', { search: 'nowhere' }, admin)
    expect(listed).toEqual([])
  })

  it('should answer 400 naming location for a location named twice, more than five, or none', async () => {
    const a = await node()
    for (const location of [[a.id, a.id], ['edge', '1', '2', '3', '4', '5'], [], '']) {
      const answer = await create({ location })
      expect(answer.status, answer.text).toBe(400)
      expect(issuePaths(answer.body)[0]).toMatch(/^location/)
    }
  })

  it('should refuse any location on a heartbeat, which reads back none', async () => {
    const a = await node()
    for (const location of ['edge', a.id, ['edge']]) {
      const answer = await create({ type: 'heartbeat', target: 'nightly', location })
      expect(answer.status, answer.text).toBe(400)
      expect(issuePaths(answer.body)).toEqual(['location'])
    }
    const heartbeat = await create({ type: 'heartbeat', target: 'nightly' })
    expect(heartbeat.body.location).toBeNull()
    const patched = await call('probes.update', { id: heartbeat.body.id, location: a.id }, admin)
    expect(patched.status, patched.text).toBe(400)
    expect(issuePaths(patched.body as { issues?: { path: string }[] })).toEqual(['location'])
  })

  it('should hold only edge checks to the outbound rule: a private target is fine from nodes only', async () => {
    // Private ranges the node opens: the node rule keeps loopback from any node, and private ranges from nodes
    // that do not open them.
    const a = await node(['10.0.0.0/8', '192.168.0.0/16'])
    const targets = { http: 'http://10.0.0.5:8080/health', tcp: '10.0.0.6:5432', cert: '192.168.1.20:8443' }
    for (const [type, target] of Object.entries(targets)) {
      const fromEdge = await create({ type, target, location: ['edge', a.id] })
      expect(fromEdge.status, fromEdge.text).toBe(400)
      expect(issuePaths(fromEdge.body)).toEqual(['target'])
      const fromNode = await create({ type, target, location: a.id })
      expect(fromNode.status, fromNode.text).toBe(200)
      expect(fromNode.body).toMatchObject({ target, location: a.id })
    }
    // A target that is not one is still refused, wherever it is checked from.
    const garbled = await create({ type: 'tcp', target: 'not a target', location: a.id })
    expect(issuePaths(garbled.body)).toEqual(['target'])
  })
})

describe('probes.update with a location', () => {
  it('should replace the location, refuse an unknown node with 404, and keep the rest', async () => {
    const [a, b] = [await node(), await node()]
    const probe = (await create({ location: a.id })).body
    const moved = await ok<Located>('probes.update', { id: probe.id, location: [a.id, b.id] }, admin)
    expect(moved).toMatchObject({ location: [a.id, b.id], name: probe.name, target: probe.target })
    const unknown = await call('probes.update', { id: probe.id, location: 'gone-node' }, admin)
    expect(unknown.status, unknown.text).toBe(404)
    expect(issuePaths(unknown.body as { issues?: { path: string }[] })).toEqual(['location'])
    expect((await probeRecord(probe.id))?.locations).toEqual([a.id, b.id])
    const renamed = await ok<Located>('probes.update', { id: probe.id, name: 'renamed' }, admin)
    expect(renamed.location).toEqual([a.id, b.id])
  })

  it('should refuse to add the edge to a probe whose target only nodes may check, naming location', async () => {
    const a = await node(['10.0.0.0/8'])
    const probe = (await create({ type: 'tcp', target: '10.1.2.3:6379', location: a.id })).body
    const answer = await call('probes.update', { id: probe.id, location: ['edge', a.id] }, admin)
    expect(answer.status, answer.text).toBe(400)
    expect(issuePaths(answer.body as { issues?: { path: string }[] })).toEqual(['location'])
    expect(answer.text).toContain('the edge may not check 10.1.2.3:6379')
    expect((await probeRecord(probe.id))?.locations).toEqual([a.id])
  })
})

describe('nodes.remove and the probes that check from it', () => {
  it('should refuse with 409 naming the probes, and remove the node once none checks from it', async () => {
    const [a, b] = [await node(), await node()]
    const first = (await create({ name: 'db port', location: a.id })).body
    const second = (await create({ name: 'api from two', location: ['edge', a.id, b.id] })).body
    const refused = await call('nodes.remove', { id: a.id }, admin)
    expect(refused.status, refused.text).toBe(409)
    expect(refused.text).toContain(`db port (${first.id})`)
    expect(refused.text).toContain(`api from two (${second.id})`)
    expect((await call('nodes.get', { id: a.id }, admin)).status).toBe(200)
    // Moved elsewhere, or archived: no live probe checks from the node any more.
    await ok('probes.update', { id: second.id, location: ['edge', b.id] }, admin)
    await ok('probes.archive', { id: first.id }, admin)
    const removed = await call('nodes.remove', { id: a.id }, admin)
    expect(removed.status, removed.text).toBe(200)
    // The archived probe keeps its history and its location as it was.
    expect((await ok<Located>('probes.get', { id: first.id }, admin)).location).toBe(a.id)
    expect((await call('nodes.remove', { id: b.id }, admin)).status).toBe(409)
  })

  it('should refuse to remove an enrolled nameserver that a probe checks from, the same way', async () => {
    const box = await ok<{ id: string; name: string }>(
      'dnsServers.nameservers.enroll',
      {
        name: `locations-box-${crypto.randomUUID().slice(0, 8)}`,
        hostname: `ns1.locations-${crypto.randomUUID().slice(0, 8)}.test`,
        publicIpv4: '198.51.100.77',
        agentUrl: 'https://agent-box.locations-example.com',
        agentSecret: FIXTURE_AGENT_SECRET,
      },
      admin,
    )
    const probe = (
      await create({ name: 'resolver from the box', type: 'dns', target: 'db.internal', location: box.id })
    ).body
    const refused = await call('dnsServers.nameservers.remove', { id: box.id }, admin)
    expect(refused.status, refused.text).toBe(409)
    expect(refused.text).toContain(`resolver from the box (${probe.id})`)
    await ok('probes.archive', { id: probe.id }, admin)
    expect((await call('dnsServers.nameservers.remove', { id: box.id }, admin)).status).toBe(200)
  })

  it('should keep a probe and its node together when the removal and the create race', async () => {
    const a = await node()
    // The node goes between the create's reads and its commit: the create answers 404 naming location.
    const createLost = await raced(
      () => create({ name: 'raced create', location: a.id }),
      () => call('nodes.remove', { id: a.id }, admin),
    )
    expect(createLost.rival.status, createLost.rival.text).toBe(200)
    expect(createLost.main.status, createLost.main.text).toBe(404)
    expect(issuePaths(createLost.main.body as { issues?: { path: string }[] })).toEqual(['location'])
    // A probe lands between the removal's reads and its commit: the removal answers 409 naming it.
    const b = await node()
    const removalLost = await raced(
      () => call('nodes.remove', { id: b.id }, admin),
      () => create({ name: 'raced probe', location: b.id }),
    )
    expect(removalLost.rival.status, removalLost.rival.text).toBe(200)
    expect(removalLost.main.status, removalLost.main.text).toBe(409)
    expect(removalLost.main.text).toContain('raced probe')
    expect((await call('nodes.get', { id: b.id }, admin)).status).toBe(200)
  })
})
