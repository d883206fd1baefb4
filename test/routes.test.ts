import { env } from 'cloudflare:workers'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import { siteWithToken } from './custom-hostnames/fixture'
import { captureJobs, type SentJob } from './dns-servers/run-job'
import { type Caller, call, ok } from './helpers/http'
import { adminSession, operatorSession, tokenFor } from './helpers/principals'

interface RouteRow {
  id: string
  instanceId: string
  siteId: string | null
  kind: 'http' | 'raw'
  hostname: string | null
  targetPort: number
  listenPort: number | null
  proto: 'tcp' | 'udp' | null
  deviceName: string | null
  edgeConfig: Record<string, unknown>
  status: string
  configVersion: number
  createdAt: string
  updatedAt: string
}

let admin: Caller
let sent: SentJob[]
let nodeId: string
let siteId: string
let instanceId: string

beforeEach(async () => {
  sent = captureJobs()
  admin = await adminSession()
  const site = await siteWithToken(admin)
  nodeId = site.nodeId
  siteId = site.siteId
  instanceId = site.instanceId
})

async function openRaw(input: Record<string, unknown>): Promise<RouteRow & { reconcileEnqueued: true }> {
  return ok('routes.createRaw', { instanceId, ...input }, admin)
}

async function auditFor(targetId: string) {
  const { entries } = await ok<{ entries: { action: string; detail: Record<string, unknown> }[] }>(
    'audit.list',
    { targetId },
    admin,
  )
  return entries.map((entry) => entry.action)
}

describe('routes.createRaw', () => {
  it('should record a raw route, answer it with reconcileEnqueued and queue a reconcile of its node', async () => {
    const route = await openRaw({ siteId, listenPort: 2222, targetPort: 22 })
    expect(route).toEqual({
      id: expect.any(String),
      instanceId,
      siteId,
      kind: 'raw',
      hostname: null,
      targetPort: 22,
      listenPort: 2222,
      proto: 'tcp',
      deviceName: 'proxy-tcp-2222',
      edgeConfig: {
        vhost: null,
        forward: { listenPort: 2222, proto: 'tcp', upstream: '10.0.0.5:22' },
        appliedVersion: null,
        firewallManaged: null,
        error: null,
      },
      status: 'pending',
      configVersion: 1,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      reconcileEnqueued: true,
    })
    expect(sent.map((job) => job.body)).toEqual([{ type: 'route.reconcile', nodeId, version: 1 }])
    expect(await auditFor(route.id)).toEqual(['route.open-raw'])
    const { reconcileEnqueued: _, ...row } = route
    expect(await ok('routes.listForSite', { siteId }, admin)).toEqual([row])
    expect(await ok('routes.listForInstance', { instanceId }, admin)).toEqual([row])
  })

  it('should answer 409 for a port already forwarded on the node and proto, and allow the other proto', async () => {
    await openRaw({ listenPort: 5353, targetPort: 53, proto: 'udp' })
    const other = await ok<{ id: string }>(
      'instances.create',
      { nodeId, name: 'second', address: '10.0.0.6' },
      admin,
    )
    const taken = await call(
      'routes.createRaw',
      {
        instanceId: other.id,
        listenPort: 5353,
        targetPort: 53,
        proto: 'udp',
      },
      admin,
    )
    expect(taken.status, taken.text).toBe(409)
    expect(taken.body).toMatchObject({ code: 'conflict', detail: expect.stringContaining('5353/udp') })
    const tcp = await openRaw({ listenPort: 5353, targetPort: 53, proto: 'tcp' })
    expect(tcp.configVersion).toBe(2)
    expect(sent.map((job) => job.body)).toEqual([
      { type: 'route.reconcile', nodeId, version: 1 },
      { type: 'route.reconcile', nodeId, version: 2 },
    ])
  })

  it('should let two parallel opens of one port have exactly one winner', async () => {
    const results = await Promise.all(
      [1, 2, 3].map(() =>
        call('routes.createRaw', { instanceId, listenPort: 6000, targetPort: 6000 }, admin),
      ),
    )
    expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409])
    expect(await ok<RouteRow[]>('routes.listForInstance', { instanceId }, admin)).toHaveLength(1)
  })

  it('should answer 400 naming the port outside 1..65535, and write nothing', async () => {
    for (const [field, input] of [
      ['listenPort', { listenPort: 0, targetPort: 80 }],
      ['listenPort', { listenPort: 65536, targetPort: 80 }],
      ['targetPort', { listenPort: 8080, targetPort: 0 }],
      ['targetPort', { listenPort: 8080, targetPort: 1.5 }],
      ['proto', { listenPort: 8080, targetPort: 80, proto: 'sctp' }],
    ] as const) {
      const result = await call('routes.createRaw', { instanceId, ...input }, admin)
      expect(result.status, result.text).toBe(400)
      expect(result.body).toMatchObject({ issues: [{ path: field }] })
    }
    expect(await ok('routes.listForInstance', { instanceId }, admin)).toEqual([])
    expect(sent).toEqual([])
  })

  it('should answer 400 naming listenPort for a port the node needs itself, on either proto', async () => {
    await ok('nodes.update', { id: nodeId, agentUrl: 'https://agent.reserved.example.com:8790' }, admin)
    const reserved = [
      [22, 'port 22 is SSH on the node'],
      [80, "port 80 is Caddy's HTTP (ACME HTTP-01 and the redirect to HTTPS) on the node"],
      [443, "port 443 is Caddy's HTTPS on the node"],
      [2019, "port 2019 is Caddy's admin API on the node"],
      [8790, "port 8790 is the node agent's own (its agentUrl)"],
    ] as const
    for (const [listenPort, message] of reserved) {
      for (const proto of ['tcp', 'udp']) {
        const result = await call(
          'routes.createRaw',
          { instanceId, listenPort, targetPort: 80, proto },
          admin,
        )
        expect(result.status, result.text).toBe(400)
        expect(result.body).toMatchObject({
          code: 'validation_failed',
          detail: `listenPort: ${message}; forward another port`,
          issues: [{ path: 'listenPort', message: `${message}; forward another port` }],
        })
      }
    }
    expect(await ok('routes.listForInstance', { instanceId }, admin)).toEqual([])
    expect(sent).toEqual([])
    // With the agent on the default port of its scheme, 8790 is a port like any other.
    await ok('nodes.update', { id: nodeId, agentUrl: 'https://agent.reserved.example.com' }, admin)
    expect(await openRaw({ listenPort: 8790, targetPort: 80 })).toMatchObject({ listenPort: 8790 })
  })

  it('should answer 404 for an unknown instance or site, and 400 for a site on another instance', async () => {
    const unknown = await call(
      'routes.createRaw',
      { instanceId: 'nope', listenPort: 1, targetPort: 1 },
      admin,
    )
    expect(unknown.status, unknown.text).toBe(404)
    const noSite = await call(
      'routes.createRaw',
      {
        instanceId,
        siteId: crypto.randomUUID(),
        listenPort: 1,
        targetPort: 1,
      },
      admin,
    )
    expect(noSite.status, noSite.text).toBe(404)
    const elsewhere = await siteWithToken(admin)
    const wrong = await call(
      'routes.createRaw',
      {
        instanceId,
        siteId: elsewhere.siteId,
        listenPort: 1,
        targetPort: 1,
      },
      admin,
    )
    expect(wrong.status, wrong.text).toBe(400)
    expect(wrong.body).toMatchObject({ issues: [{ path: 'siteId' }] })
  })
})

describe('routes.listForSite and listForInstance', () => {
  it('should answer 404 for an unknown site or instance and let an operator read', async () => {
    const operator = await operatorSession(admin)
    expect(await ok('routes.listForSite', { siteId }, operator)).toEqual([])
    const site = await call('routes.listForSite', { siteId: crypto.randomUUID() }, operator)
    expect(site.status, site.text).toBe(404)
    const instance = await call('routes.listForInstance', { instanceId: 'gone' }, operator)
    expect(instance.status, instance.text).toBe(404)
  })

  it("should read a site's first page in one D1 statement, the site's existence included", async () => {
    await openRaw({ siteId, listenPort: 7003, targetPort: 7003 })
    const token = await tokenFor(admin, ['domains:view'])
    // Its principal is then in this isolate's memory, so the list's own statements are all that is counted.
    await ok('auth.me', {}, token)
    const prepare = vi.spyOn(env.DB, 'prepare')
    try {
      expect(await ok<RouteRow[]>('routes.listForSite', { siteId }, token)).toHaveLength(1)
      expect(prepare).toHaveBeenCalledTimes(1)
    } finally {
      prepare.mockRestore()
    }
  })

  it('should list newest first, only the routes of that site or instance', async () => {
    const first = await openRaw({ siteId, listenPort: 7001, targetPort: 7001 })
    const second = await openRaw({ listenPort: 7002, targetPort: 7002 })
    expect((await ok<RouteRow[]>('routes.listForSite', { siteId }, admin)).map((r) => r.id)).toEqual([
      first.id,
    ])
    expect((await ok<RouteRow[]>('routes.listForInstance', { instanceId }, admin)).map((r) => r.id)).toEqual([
      second.id,
      first.id,
    ])
  })
})

describe('routes.reconcile and routes.remove', () => {
  it('should re-push a route with a new node version, answering the node', async () => {
    const route = await openRaw({ listenPort: 8001, targetPort: 80 })
    expect(await ok('routes.reconcile', { id: route.id }, admin)).toEqual({ reconcileEnqueued: true, nodeId })
    expect(sent.map((job) => job.body).at(-1)).toEqual({ type: 'route.reconcile', nodeId, version: 2 })
    const [row] = await ok<RouteRow[]>('routes.listForInstance', { instanceId }, admin)
    expect(row).toMatchObject({ status: 'pending', configVersion: 2 })
    expect(await auditFor(route.id)).toEqual(['route.reconcile', 'route.open-raw'])
  })

  it('should mark a route removed, free its port at once, and answer 404 for an unknown id', async () => {
    const route = await openRaw({ listenPort: 8002, targetPort: 80 })
    expect(await ok('routes.remove', { id: route.id }, admin)).toEqual({
      removed: true,
      reconcileEnqueued: true,
    })
    expect(sent.map((job) => job.body).at(-1)).toEqual({ type: 'route.reconcile', nodeId, version: 2 })
    const [row] = await ok<RouteRow[]>('routes.listForInstance', { instanceId }, admin)
    expect(row).toMatchObject({ id: route.id, status: 'removed', configVersion: 2 })
    expect(await auditFor(route.id)).toEqual(['route.remove', 'route.open-raw'])
    await openRaw({ listenPort: 8002, targetPort: 81 })
    for (const name of ['routes.remove', 'routes.reconcile']) {
      const missing = await call(name, { id: crypto.randomUUID() }, admin)
      expect(missing.status, missing.text).toBe(404)
    }
  })
})
