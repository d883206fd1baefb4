import { mkdtemp, rm } from 'node:fs/promises'
import { createServer, connect as netConnect, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningAgent, startAgent } from '../../node-agent/start.ts'
import {
  freePort,
  signedPost,
  startCaddy,
  type TcpCaddyProcess,
  testAgentConfig,
} from '../../node-agent/testing/harness.ts'
import type { EdgeState, Forward } from '../../src/agent-contract/v1.ts'

// Per-entry apply against a real Caddy: an entry the agent cannot serve is reported with its reason, and
// neither it nor a later version is held back by it.
let caddy: TcpCaddyProcess
let agent: RunningAgent
let storage: string
let echo: Server
let echoPort: number
let blocker: Server
let takenPort: number
const secret = testAgentConfig('', '').secret

function listening(server: Server, port = 0): Promise<number> {
  return new Promise((resolve) =>
    server.listen({ host: '127.0.0.1', port }, () => {
      const address = server.address()
      resolve(typeof address === 'object' && address ? address.port : 0)
    }),
  )
}

beforeAll(async () => {
  caddy = await startCaddy()
  storage = await mkdtemp(path.join(tmpdir(), 'agent-entries-'))
  agent = await startAgent(
    testAgentConfig(storage, caddy.adminUrl, {
      httpsListen: `127.0.0.1:${await freePort()}`,
      httpListen: `127.0.0.1:${await freePort()}`,
    }),
  )
  echo = createServer((socket) => socket.pipe(socket))
  echoPort = await listening(echo)
  // Someone else on the node holds this port: the agent cannot bind a forward on it.
  blocker = createServer((socket) => socket.end('not the agent').destroySoon())
  takenPort = await listening(blocker)
}, 20_000)

afterAll(async () => {
  await agent?.close()
  await caddy?.stop()
  await new Promise((resolve) => echo?.close(resolve))
  if (blocker?.listening) await new Promise((resolve) => blocker.close(resolve))
  await rm(storage, { recursive: true, force: true })
})

const apply = (state: EdgeState) => signedPost(agent.url, '/v2/edge/apply', state, secret)
const servedHosts = async () => {
  const config = (await (await fetch(`${caddy.adminUrl}/config/`)).json()) as {
    apps: { http: { servers: { edge: { routes: { match: { host: string[] }[] }[] } } } }
  }
  return config.apps.http.servers.edge.routes.flatMap((route) => route.match[0]?.host ?? [])
}

function echoThrough(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = netConnect({ host: '127.0.0.1', port }, () => socket.write(text))
    socket.setEncoding('utf8')
    socket.once('data', (data: string) => {
      socket.destroy()
      resolve(data)
    })
    socket.once('error', reject)
  })
}

describe('per-entry apply', () => {
  const vhost = { hostname: 'shop.example.test', upstream: '127.0.0.1:9', issuer: 'pebble' } as const
  let free: Forward
  let taken: Forward

  it('should report a forward it cannot bind with the reason and serve every other entry', async () => {
    free = { listenPort: await freePort(), proto: 'tcp', upstream: `127.0.0.1:${echoPort}` }
    taken = { listenPort: takenPort, proto: 'tcp', upstream: `127.0.0.1:${echoPort}` }
    const res = await apply({ configVersion: 1, vhosts: [vhost], forwards: [taken, free] })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body).toMatchObject({
      appliedVersion: 1,
      failed: [
        {
          kind: 'forward',
          listenPort: takenPort,
          proto: 'tcp',
          error: expect.stringMatching(new RegExp(`^cannot listen on tcp/${takenPort}: .*EADDRINUSE`)),
        },
      ],
    })
    // The firewall opens only what serves.
    expect((res.body.firewall as { rules: string[] }).rules.join('\n')).not.toContain(`--dport ${takenPort}`)
    expect(await echoThrough(free.listenPort, 'through the free port')).toBe('through the free port')
    expect(await echoThrough(takenPort, 'x')).toBe('not the agent')
    expect(await servedHosts()).toEqual([vhost.hostname])
  })

  it('should answer the same outcomes to the same version sent again', async () => {
    const res = await apply({ configVersion: 1, vhosts: [vhost], forwards: [taken, free] })
    expect(res.body).toMatchObject({
      appliedVersion: 1,
      failed: [{ kind: 'forward', listenPort: takenPort }],
    })
  })

  it('should fail a vhost it cannot render, keep the others, and still apply a later version', async () => {
    const added = { hostname: 'new.example.test', upstream: '127.0.0.1:9', issuer: 'pebble' } as const
    const broken = { hostname: 'broken.example.test', upstream: 'no-port', issuer: 'pebble' } as const
    const res = await apply({ configVersion: 2, vhosts: [vhost, broken, added], forwards: [taken, free] })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body).toMatchObject({
      appliedVersion: 2,
      failed: [
        { kind: 'vhost', hostname: broken.hostname, error: 'the upstream no-port is not <address>:<port>' },
        { kind: 'forward', listenPort: takenPort, proto: 'tcp' },
      ],
    })
    // One route for their one upstream, the hostnames sorted.
    expect(await servedHosts()).toEqual([added.hostname, vhost.hostname])
    expect((await fetch(`${agent.askUrl}?domain=${broken.hostname}`)).status).toBe(403)
    expect((await fetch(`${agent.askUrl}?domain=${added.hostname}`)).status).toBe(200)
    expect(await echoThrough(free.listenPort, 'still forwarding')).toBe('still forwarding')
  })

  it('should bind the forward once its port is free, at the next version', async () => {
    await new Promise((resolve) => blocker.close(resolve))
    const res = await apply({ configVersion: 3, vhosts: [vhost], forwards: [taken, free] })
    expect(res.body).toMatchObject({ appliedVersion: 3, failed: [] })
    expect(await echoThrough(takenPort, 'now the agent')).toBe('now the agent')
  })
})
