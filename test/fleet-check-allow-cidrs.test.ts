import { beforeAll, describe, expect, it } from 'vitest'
import { FIXTURE_AGENT_SECRET } from './helpers/agent-callback'
import { type Caller, call, ok } from './helpers/http'
import { adminSession, tokenFor } from './helpers/principals'

// A node's checkAllowCidrs: the private ranges the node's checks may reach. Only fleet:manage sets it; each entry
// is a CIDR inside a private range (10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7), at most 64 of them.

let admin: Caller
let count = 0

interface NodeRow {
  id: string
  checkAllowCidrs: string[]
  updatedAt: string
}

beforeAll(async () => {
  admin = await adminSession()
})

const nodeInput = (extra: Record<string, unknown> = {}) => ({
  name: `cidrs-node-${++count}-${crypto.randomUUID().slice(0, 8)}`,
  agentUrl: `https://agent-${count}.cidrs-example.com`,
  agentSecret: FIXTURE_AGENT_SECRET,
  ...extra,
})

const paths = (body: unknown) => ((body as { issues?: { path: string }[] }).issues ?? []).map((i) => i.path)

const invalid = [
  ['not a CIDR', 'ten-dot-something'],
  ['no prefix', '10.0.0.0'],
  ['a prefix too long', '10.0.0.0/33'],
  ['bits set past the prefix', '10.0.0.5/8'],
  ['a public range', '8.8.8.0/24'],
  ['everything', '0.0.0.0/0'],
  ['loopback', '127.0.0.0/8'],
  ['link-local', '169.254.0.0/16'],
  ['an IPv6 range outside fc00::/7', '2001:db8::/32'],
  ['a range wider than a private one', '10.0.0.0/7'],
] as const

describe('nodes.create and nodes.update with checkAllowCidrs', () => {
  it('should default to none, store and return the list where nodes are read', async () => {
    const plain = await ok<NodeRow>('nodes.create', nodeInput(), admin)
    expect(plain.checkAllowCidrs).toEqual([])
    const cidrs = ['10.0.0.0/8', '172.16.4.0/24', '192.168.0.0/16', '100.64.0.0/10', 'fd00:1234::/32']
    const set = await ok<NodeRow>('nodes.create', nodeInput({ checkAllowCidrs: cidrs }), admin)
    expect(set.checkAllowCidrs).toEqual(cidrs)
    expect((await ok<NodeRow>('nodes.get', { id: set.id }, admin)).checkAllowCidrs).toEqual(cidrs)
    const listed = await ok<NodeRow[]>('nodes.list', { limit: 100 }, admin)
    expect(listed.find((row) => row.id === set.id)?.checkAllowCidrs).toEqual(cidrs)
    // IPv6 is kept in its canonical spelling.
    const upper = await ok<NodeRow>(
      'nodes.update',
      { id: plain.id, checkAllowCidrs: ['FD00:0:0::/16'] },
      admin,
    )
    expect(upper.checkAllowCidrs).toEqual(['fd00::/16'])
    const cleared = await ok<NodeRow>('nodes.update', { id: set.id, checkAllowCidrs: [] }, admin)
    expect(cleared.checkAllowCidrs).toEqual([])
  })

  it.each(invalid)(
    'should refuse %s with 400 naming checkAllowCidrs, and change nothing',
    async (_why, cidr) => {
      const refusedCreate = await call(
        'nodes.create',
        nodeInput({ checkAllowCidrs: ['10.0.0.0/8', cidr] }),
        admin,
      )
      expect(refusedCreate.status, refusedCreate.text).toBe(400)
      expect(paths(refusedCreate.body)).toEqual(['checkAllowCidrs'])
      expect(refusedCreate.text).toContain(cidr)
      const node = await ok<NodeRow>('nodes.create', nodeInput({ checkAllowCidrs: ['10.0.0.0/8'] }), admin)
      const refused = await call('nodes.update', { id: node.id, checkAllowCidrs: [cidr] }, admin)
      expect(refused.status, refused.text).toBe(400)
      expect(paths(refused.body)).toEqual(['checkAllowCidrs'])
      expect(await ok<NodeRow>('nodes.get', { id: node.id }, admin)).toMatchObject({
        checkAllowCidrs: ['10.0.0.0/8'],
        updatedAt: node.updatedAt,
      })
    },
  )

  it('should refuse more than 64 entries, and anyone without fleet:manage', async () => {
    const many = Array.from({ length: 65 }, (_, i) => `10.${i}.0.0/16`)
    const tooMany = await call('nodes.create', nodeInput({ checkAllowCidrs: many }), admin)
    expect(tooMany.status, tooMany.text).toBe(400)
    expect(paths(tooMany.body)[0]).toMatch(/^checkAllowCidrs/)
    const node = await ok<NodeRow>('nodes.create', nodeInput({ checkAllowCidrs: many.slice(0, 64) }), admin)
    expect(node.checkAllowCidrs).toHaveLength(64)
    for (const permissions of [['probes:manage'], ['fleet:view', 'probes:manage']] as const) {
      const token = await tokenFor(admin, [...permissions])
      const denied = await call('nodes.update', { id: node.id, checkAllowCidrs: [] }, token)
      expect(denied.status, denied.text).toBe(403)
    }
    expect((await ok<NodeRow>('nodes.get', { id: node.id }, admin)).checkAllowCidrs).toHaveLength(64)
  })
})
