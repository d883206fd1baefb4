import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { AgentConfig } from '../../node-agent/config.ts'
import { type RunningAgent, startAgent } from '../../node-agent/start.ts'
import {
  freePort,
  signedPost,
  startCaddy,
  type TcpCaddyProcess,
  testAgentConfig,
} from '../../node-agent/testing/harness.ts'
import type { EdgeChanges, EdgeStatePart } from '../../src/agent-contract/edge-changes.ts'
import type { EdgeState, Vhost } from '../../src/agent-contract/v1.ts'

// Contract v2's delta calls against a real Caddy: changes on the version served, the whole state in parts, a
// whole state applied as what differs from the served one, and the journal that brings it back after a restart.
let caddy: TcpCaddyProcess
let agent: RunningAgent
let storage: string
let config: AgentConfig
const secret = testAgentConfig('', '').secret

beforeAll(async () => {
  caddy = await startCaddy()
  storage = await mkdtemp(path.join(tmpdir(), 'agent-delta-'))
  config = testAgentConfig(storage, caddy.adminUrl, {
    httpsListen: `127.0.0.1:${await freePort()}`,
    httpListen: `127.0.0.1:${await freePort()}`,
    nodeId: 'node-delta',
  })
  agent = await startAgent(config)
}, 20_000)

afterAll(async () => {
  await agent?.close()
  await caddy?.stop()
  await rm(storage, { recursive: true, force: true })
})

const vhost = (hostname: string, upstream = '127.0.0.1:9'): Vhost => ({
  hostname,
  upstream,
  issuer: 'pebble',
})
const none = { vhosts: [], removeHostnames: [], forwards: [], removeForwards: [] }
const changes = (body: EdgeChanges) => signedPost(agent.url, '/v2/edge/changes', body, secret)
const part = (body: EdgeStatePart) => signedPost(agent.url, '/v2/edge/parts', body, secret)
const apply = (state: EdgeState) => signedPost(agent.url, '/v2/edge/apply', state, secret)

/** Each route of Caddy's TLS server as `dial: hosts`. */
async function caddyRoutes(): Promise<string[]> {
  const running = (await (await fetch(`${caddy.adminUrl}/config/`)).json()) as {
    apps: {
      http: {
        servers: {
          edge: { routes: { match: { host: string[] }[]; handle: { upstreams: { dial: string }[] }[] }[] }
        }
      }
    }
  }
  return running.apps.http.servers.edge.routes.map(
    (route) => `${route.handle[0]?.upstreams[0]?.dial}: ${route.match[0]?.host.join(' ')}`,
  )
}

const journal = async () =>
  (await readFile(path.join(config.stateDir, 'edge-journal.ndjson'), 'utf8'))
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>)

describe('POST /v2/edge/changes', () => {
  it('should apply changes on the version it serves, touching only the entries they name', async () => {
    const first = await apply({
      configVersion: 1,
      vhosts: [vhost('a.delta.test'), vhost('b.delta.test'), vhost('z.delta.test', '127.0.0.1:10')],
      forwards: [],
    })
    expect(first.status, JSON.stringify(first.body)).toBe(200)
    const res = await changes({
      ...none,
      baseVersion: 1,
      configVersion: 2,
      vhosts: [vhost('c.delta.test')],
      removeHostnames: ['a.delta.test', 'not-served.delta.test'],
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body).toMatchObject({ appliedVersion: 2, failed: [] })
    expect(await caddyRoutes()).toEqual([
      '127.0.0.1:9: b.delta.test c.delta.test',
      '127.0.0.1:10: z.delta.test',
    ])
    expect((await fetch(`${agent.askUrl}?domain=a.delta.test`)).status).toBe(403)
    expect((await fetch(`${agent.askUrl}?domain=c.delta.test`)).status).toBe(200)
  })

  it('should answer 409 version_mismatch with the version it serves to changes on another base, changing nothing', async () => {
    const res = await changes({
      ...none,
      baseVersion: 5,
      configVersion: 6,
      removeHostnames: ['b.delta.test'],
    })
    expect(res.status).toBe(409)
    expect(res.contentType).toBe('application/problem+json')
    expect(res.body).toMatchObject({ status: 409, code: 'version_mismatch', appliedVersion: 2 })
    expect(await caddyRoutes()).toEqual([
      '127.0.0.1:9: b.delta.test c.delta.test',
      '127.0.0.1:10: z.delta.test',
    ])
  })

  it('should answer a replay and a superseded version with the version it serves', async () => {
    const replay = await changes({
      ...none,
      baseVersion: 1,
      configVersion: 2,
      vhosts: [vhost('c.delta.test')],
    })
    expect(replay.status).toBe(200)
    expect(replay.body).toMatchObject({ appliedVersion: 2 })
    const superseded = await changes({
      ...none,
      baseVersion: 0,
      configVersion: 1,
      vhosts: [vhost('x.delta.test')],
    })
    expect(superseded.body).toMatchObject({ appliedVersion: 2 })
    expect(await caddyRoutes()).toEqual([
      '127.0.0.1:9: b.delta.test c.delta.test',
      '127.0.0.1:10: z.delta.test',
    ])
  })

  it('should refuse a hostname both set and removed (400, naming it) and a body over 8 MiB (413)', async () => {
    const both = await changes({
      ...none,
      baseVersion: 2,
      configVersion: 3,
      vhosts: [vhost('d.delta.test')],
      removeHostnames: ['d.delta.test'],
    })
    expect(both.status).toBe(400)
    expect(both.body.issues).toEqual([
      { path: 'removeHostnames.0', message: 'd.delta.test is both set and removed' },
    ])
    // A whole state may be larger: the same 9 MiB reaches the schema on /v2/edge/apply.
    const padded = { ...none, baseVersion: 2, configVersion: 3, pad: 'x'.repeat(9 * 1024 * 1024) }
    expect((await signedPost(agent.url, '/v2/edge/changes', padded, secret)).status).toBe(413)
    expect((await signedPost(agent.url, '/v2/edge/apply', padded, secret)).status).toBe(400)
    expect(agent.agent.appliedVersion).toBe(2)
  })
})

describe('POST /v2/edge/parts', () => {
  const partOf = (
    configVersion: number,
    index: number,
    parts: number,
    hostnames: string[],
  ): EdgeStatePart => ({
    configVersion,
    part: index,
    parts,
    vhosts: hostnames.map((hostname) => vhost(hostname)),
    forwards: [],
  })

  it('should hold parts out of order and a repeated part once, and drop them for a newer version', async () => {
    const held = [
      await part(partOf(3, 2, 3, ['p3c.delta.test'])),
      await part(partOf(3, 0, 3, ['p3a.delta.test'])),
      await part(partOf(3, 0, 3, ['p3a.delta.test'])),
    ]
    expect(held.map((res) => res.body)).toEqual([
      { configVersion: 3, partsReceived: 1, parts: 3, applied: null },
      { configVersion: 3, partsReceived: 2, parts: 3, applied: null },
      { configVersion: 3, partsReceived: 2, parts: 3, applied: null },
    ])
    // Version 4 begins: version 3's parts are dropped, and its last part comes too late.
    expect((await part(partOf(4, 1, 2, ['p4b.delta.test']))).body).toMatchObject({ partsReceived: 1 })
    expect((await part(partOf(3, 1, 3, ['p3b.delta.test']))).body).toMatchObject({
      configVersion: 3,
      partsReceived: 0,
      applied: null,
    })
    expect(agent.agent.appliedVersion).toBe(2)
  })

  it('should apply the whole state when it holds every part, and answer a part of it again with the version', async () => {
    const last = await part(partOf(4, 0, 2, ['p4a.delta.test', 'b.delta.test']))
    expect(last.status, JSON.stringify(last.body)).toBe(200)
    expect(last.body).toMatchObject({
      configVersion: 4,
      partsReceived: 2,
      applied: { appliedVersion: 4, failed: [] },
    })
    expect(await caddyRoutes()).toEqual(['127.0.0.1:9: b.delta.test p4a.delta.test p4b.delta.test'])
    expect((await part(partOf(4, 1, 2, ['p4b.delta.test']))).body).toMatchObject({
      partsReceived: 2,
      applied: { appliedVersion: 4 },
    })
  })
})

describe('a whole state applied as what differs from the served one', () => {
  it('should touch only the changed entry: one journal line with it, the rest of Caddy as it was', async () => {
    const before = await caddyRoutes()
    const res = await apply({
      configVersion: 5,
      vhosts: [
        vhost('p4a.delta.test'),
        vhost('b.delta.test'),
        vhost('p4b.delta.test'),
        vhost('e.delta.test'),
      ],
      forwards: [],
    })
    expect(res.body).toMatchObject({ appliedVersion: 5, failed: [] })
    expect((await journal()).at(-1)).toEqual({
      baseVersion: 4,
      configVersion: 5,
      ...none,
      vhosts: [vhost('e.delta.test')],
    })
    expect(await caddyRoutes()).toEqual([before[0]?.replace('b.delta.test ', 'b.delta.test e.delta.test ')])
    const removed = await apply({
      configVersion: 6,
      vhosts: [vhost('p4a.delta.test'), vhost('p4b.delta.test'), vhost('e.delta.test')],
      forwards: [],
    })
    expect(removed.body).toMatchObject({ appliedVersion: 6 })
    expect((await journal()).at(-1)).toEqual({
      ...none,
      baseVersion: 5,
      configVersion: 6,
      removeHostnames: ['b.delta.test'],
    })
  })

  it('should serve the snapshot and its journal again after a restart, before the panel says anything', async () => {
    const served = await caddyRoutes()
    await agent.close()
    await caddy.stop()
    caddy = await startCaddy()
    agent = await startAgent({ ...config, caddyAdmin: caddy.adminUrl })
    expect(agent.agent.appliedVersion).toBe(6)
    expect(await caddyRoutes()).toEqual(served)
    expect(await agent.agent.mayIssue('e.delta.test')).toBe(true)
    expect(await agent.agent.mayIssue('b.delta.test')).toBe(false)
  })
})
