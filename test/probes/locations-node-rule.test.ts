import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { FIXTURE_AGENT_SECRET } from '../helpers/agent-callback'
import { type Caller, call, ok } from '../helpers/http'
import { fakeOrigin } from '../helpers/outbound'
import { adminSession, tokenFor } from '../helpers/principals'
import { probeRecord, STATUS_ORIGIN, workerEnv } from './catalogue-fixture'

// A check located on a node runs from inside the node's network, where Caddy's admin API (127.0.0.1:2019), the
// cloud's metadata service and the node's own agent listen. Whoever holds probes:manage may not aim a node's
// checks at those; private ranges only once the node's checkAllowCidrs (fleet:manage) lists them.

let admin: Caller
let prober: Caller
let nodeCount = 0

interface Problem {
  status?: number
  issues?: { path: string; message: string }[]
}

beforeAll(async () => {
  admin = await adminSession()
  prober = await tokenFor(admin, ['probes:manage'])
})

beforeEach(() => {
  // A sub-minute edge probe's monitor checks at once, from its own alarm.
  fakeOrigin(STATUS_ORIGIN, () => new Response('ok'))
})

interface TestNode {
  id: string
  name: string
  agentUrl: string
  agentHostname: string | null
  checkAllowCidrs: string[]
}

async function node(fields: Record<string, unknown> = {}): Promise<TestNode> {
  const n = ++nodeCount
  return ok<TestNode>(
    'nodes.create',
    {
      name: `rule-node-${n}-${crypto.randomUUID().slice(0, 8)}`,
      agentUrl: `https://agent-${n}.rule-example.com:8443`,
      agentSecret: FIXTURE_AGENT_SECRET,
      ...fields,
    },
    admin,
  )
}

const create = (fields: Record<string, unknown>, caller = prober) =>
  call<{ id: string; target: string } & Problem>(
    'probes.create',
    { name: `node rule ${crypto.randomUUID().slice(0, 8)}`, type: 'http', targetKind: 'external', ...fields },
    caller,
  )

const update = (fields: Record<string, unknown>) => call<Problem>('probes.update', fields, prober)

const probeCount = () => workerEnv.DB.prepare('select count(*) as n from probes').first<number>('n')

const paths = (body: Problem) => (body.issues ?? []).map((issue) => issue.path)

/** A 400 naming `field`, and only it. */
async function expectRefused(answer: { status: number; text: string; body: Problem }, field: string) {
  expect(answer.status, answer.text).toBe(400)
  expect(paths(answer.body), answer.text).toEqual([field])
}

describe('probes.create located on a node', () => {
  it('should refuse a target on the node itself or its cloud metadata, with 400 naming target', async () => {
    const [a, b] = [await node(), await node()]
    const stored = await probeCount()
    const http = [
      'http://127.0.0.1:2019/stop',
      'http://127.8.9.10/',
      'http://169.254.169.254/latest/meta-data/iam/security-credentials/',
      'http://[::1]:2019/config/',
      'http://localhost:2019/stop',
      'http://foo.localhost/',
      'http://LOCALHOST./',
      'http://0.0.0.0:2019/stop',
      'http://[::]:2019/',
      'http://[::ffff:127.0.0.1]:2019/stop',
      'http://[::ffff:169.254.169.254]/',
      'http://[fe80::1]/',
      'http://metadata.google.internal/computeMetadata/v1/',
      'http://metadata/computeMetadata/v1/',
      'http://instance-data/latest/meta-data/',
      'http://100.100.100.200/latest/meta-data/',
      'http://[fd00:ec2::254]/latest/meta-data/',
      // Caddy's admin API by a spelling the URL parser reads as loopback.
      'http://0x7f.1:2019/stop',
    ]
    for (const target of http) {
      for (const location of [a.id, [b.id, a.id]]) {
        const answer = await create({ target, location })
        await expectRefused(answer, 'target')
      }
    }
    const targets = {
      tcp: ['127.0.0.1:22', '[::1]:22', 'localhost:2019', '169.254.169.254:80', '0.0.0.0:2019'],
      cert: ['127.0.0.1', 'localhost:8443', '[fe80::1]:443', 'metadata.google.internal'],
    }
    for (const [type, list] of Object.entries(targets))
      for (const target of list) await expectRefused(await create({ type, target, location: a.id }), 'target')
    const refused = await create({ target: 'http://127.0.0.1:2019/stop', location: a.id })
    expect(refused.text).toContain('loopback')
    expect(await probeCount()).toBe(stored)
  })

  it("should refuse the node's own agent (its agentUrl's host and port, any port of its agentHostname)", async () => {
    const a = await node()
    const agentHost = new URL(a.agentUrl).host
    await expectRefused(await create({ target: `https://${agentHost}/v2/health`, location: a.id }), 'target')
    await expectRefused(await create({ type: 'tcp', target: agentHost, location: a.id }), 'target')
    // Another port of the same name is another service; from another node it is any host.
    const other = await node()
    const otherPort = await create({
      type: 'tcp',
      target: `${new URL(a.agentUrl).hostname}:22`,
      location: a.id,
    })
    expect(otherPort.status, otherPort.text).toBe(200)
    const elsewhere = await create({ target: `https://${agentHost}/v2/health`, location: other.id })
    expect(elsewhere.status, elsewhere.text).toBe(200)
    const hostname = `agent-h${nodeCount}.rule-example.com`
    const named = await node({ agentUrl: `https://${hostname}`, agentHostname: hostname })
    for (const target of [`${hostname}:443`, `${hostname}:80`, `${hostname}:2019`])
      await expectRefused(await create({ type: 'tcp', target, location: named.id }), 'target')
    await expectRefused(await create({ type: 'cert', target: hostname, location: named.id }), 'target')
  })

  it('should send only GET or HEAD from a node: POST is 400 naming config.method', async () => {
    const a = await node()
    const post = await create({ target: `${STATUS_ORIGIN}/`, location: a.id, config: { method: 'POST' } })
    await expectRefused(post, 'config.method')
    const both = await create({
      target: `${STATUS_ORIGIN}/`,
      location: ['edge', a.id],
      config: { method: 'POST' },
    })
    await expectRefused(both, 'config.method')
    for (const method of ['GET', 'HEAD']) {
      const fine = await create({ target: `${STATUS_ORIGIN}/`, location: a.id, config: { method } })
      expect(fine.status, fine.text).toBe(200)
    }
    // The edge alone may still POST (its outbound rule keeps it to public hosts).
    const edge = await create({ target: `${STATUS_ORIGIN}/`, config: { method: 'POST' } })
    expect(edge.status, edge.text).toBe(200)
  })

  it('should refuse a private target until the node lists its range in checkAllowCidrs (fleet:manage)', async () => {
    const a = await node()
    expect(a.checkAllowCidrs).toEqual([])
    const targets = {
      http: 'http://10.0.0.5:8080/health',
      tcp: '10.0.0.5:5432',
      cert: '10.0.0.5:8443',
    }
    for (const [type, target] of Object.entries(targets))
      await expectRefused(await create({ type, target, location: a.id }), 'target')
    const denied = await call('nodes.update', { id: a.id, checkAllowCidrs: ['10.0.0.0/8'] }, prober)
    expect(denied.status, denied.text).toBe(403)
    expect((await ok<TestNode>('nodes.get', { id: a.id }, admin)).checkAllowCidrs).toEqual([])
    const opened = await ok<TestNode>('nodes.update', { id: a.id, checkAllowCidrs: ['10.0.0.0/8'] }, admin)
    expect(opened.checkAllowCidrs).toEqual(['10.0.0.0/8'])
    for (const [type, target] of Object.entries(targets)) {
      const fine = await create({ type, target, location: a.id })
      expect(fine.status, fine.text).toBe(200)
    }
    const mapped = await create({ type: 'tcp', target: '[::ffff:10.1.2.3]:6379', location: a.id })
    expect(mapped.status, mapped.text).toBe(200)
    // Only the listed range opens: other private ranges, and the shared space (100.64/10), stay shut.
    for (const target of ['192.168.1.5:22', '172.16.0.9:22', '100.64.0.1:22', '[fd12::1]:22'])
      await expectRefused(await create({ type: 'tcp', target, location: a.id }), 'target')
    // Another node's list opens nothing here.
    const b = await node()
    await expectRefused(
      await create({ type: 'tcp', target: '10.0.0.5:5432', location: [a.id, b.id] }),
      'target',
    )
  })

  it('should leave a host name to the agent, and dns probes (a lookup, no connection) alone', async () => {
    const a = await node()
    for (const target of ['db.internal:5432', 'redis.svc.cluster.local:6379']) {
      const fine = await create({ type: 'tcp', target, location: a.id })
      expect(fine.status, fine.text).toBe(200)
    }
    for (const target of ['metadata.google.internal', 'db.internal', 'localhost.example.com']) {
      const dns = await create({ type: 'dns', target, location: a.id })
      expect(dns.status, dns.text).toBe(200)
    }
  })
})

describe('probes.update of a probe located on a node', () => {
  it('should refuse a move to a node whose checkAllowCidrs does not open the target, naming target', async () => {
    const open = await node({ checkAllowCidrs: ['10.0.0.0/8'] })
    const shut = await node()
    const probe = (await create({ type: 'tcp', target: '10.0.0.5:5432', location: open.id })).body
    await expectRefused(await update({ id: probe.id, location: shut.id }), 'target')
    await expectRefused(await update({ id: probe.id, location: [open.id, shut.id] }), 'target')
    expect((await probeRecord(probe.id))?.locations).toEqual([open.id])
    const staying = await update({ id: probe.id, location: [open.id], name: 'still open' })
    expect(staying.status, JSON.stringify(staying.body)).toBe(200)
  })

  it('should refuse POST on a node-located http probe, and moving a POST probe onto a node', async () => {
    const a = await node()
    const located = (await create({ target: `${STATUS_ORIGIN}/`, location: a.id })).body
    await expectRefused(await update({ id: located.id, config: { method: 'POST' } }), 'config.method')
    expect((await probeRecord(located.id))?.config).toMatchObject({ method: 'GET' })
    const edge = (await create({ target: `${STATUS_ORIGIN}/`, config: { method: 'POST' } })).body
    await expectRefused(await update({ id: edge.id, location: ['edge', a.id] }), 'config.method')
    expect((await probeRecord(edge.id))?.locations).toEqual(['edge'])
    const head = await update({ id: edge.id, location: ['edge', a.id], config: { method: 'HEAD' } })
    expect(head.status, JSON.stringify(head.body)).toBe(200)
  })
})
