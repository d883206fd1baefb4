import { mkdtemp, rm } from 'node:fs/promises'
import { get } from 'node:http'
import { createServer, connect as netConnect, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runningCaddyConfig } from '../../node-agent/caddy-admin.ts'
import { renderCaddyConfig } from '../../node-agent/caddy-config.ts'
import { readConfig } from '../../node-agent/config.ts'
import { AGENT_VERSION } from '../../node-agent/edge-agent.ts'
import { ServedState } from '../../node-agent/served-state.ts'
import { type RunningAgent, startAgent } from '../../node-agent/start.ts'
import {
  freePort,
  signedPost,
  startCaddy,
  startCaddyOnSocket,
  type TcpCaddyProcess,
  testAgentConfig,
} from '../../node-agent/testing/harness.ts'
import type { EdgeState } from '../../src/agent-contract/v1.ts'

// The agent against a real Caddy (Debian's caddy 2.6): admin, HTTP and HTTPS on free 127.0.0.1 ports.
let caddy: TcpCaddyProcess
let agent: RunningAgent
let storage: string
let echo: Server
let echoPort: number
let httpPort: number
let httpsListen: string
const secret = testAgentConfig('', '').secret

beforeAll(async () => {
  caddy = await startCaddy()
  storage = await mkdtemp(path.join(tmpdir(), 'agent-storage-'))
  httpPort = await freePort()
  httpsListen = `127.0.0.1:${await freePort()}`
  agent = await startAgent(
    testAgentConfig(storage, caddy.adminUrl, { httpsListen, httpListen: `127.0.0.1:${httpPort}` }),
  )
  echo = createServer((socket) => socket.pipe(socket))
  await new Promise<void>((resolve) => echo.listen({ host: '127.0.0.1', port: 0 }, resolve))
  const address = echo.address()
  echoPort = typeof address === 'object' && address ? address.port : 0
}, 20_000)

afterAll(async () => {
  await agent?.close()
  await caddy?.stop()
  await new Promise((resolve) => echo?.close(resolve))
  await rm(storage, { recursive: true, force: true })
})

const apply = (state: EdgeState) => signedPost(agent.url, '/v2/edge/apply', state, secret)
// A connection of its own each time: Caddy closes idle admin connections when a load fails and rolls back, and a
// kept-alive fetch socket then reads "other side closed".
const loadedConfig = () => runningCaddyConfig(caddy.adminUrl)
const ask = async (domain: string) => (await fetch(`${agent.askUrl}?domain=${domain}`)).status

// fetch() will not send a Host header of our choosing; node:http does.
function plainGet(hostname: string): Promise<{ status: number; location: string | undefined }> {
  return new Promise((resolve, reject) => {
    const request = get(
      { host: '127.0.0.1', port: httpPort, path: '/path?q=1', headers: { host: hostname } },
      (response) => {
        response.resume()
        resolve({ status: response.statusCode ?? 0, location: response.headers.location })
      },
    )
    request.once('error', reject)
  })
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

describe('apply against Caddy', () => {
  const vhost = { hostname: 'shop.example.test', upstream: '127.0.0.1:9', issuer: 'pebble' } as const
  let forwardPort: number

  it('should load the rendered config through the admin API and serve it', async () => {
    forwardPort = await freePort()
    const state: EdgeState = {
      configVersion: 1,
      vhosts: [vhost],
      forwards: [{ listenPort: forwardPort, proto: 'tcp', upstream: `127.0.0.1:${echoPort}` }],
    }
    const res = await apply(state)
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body).toEqual({
      appliedVersion: 1,
      firewall: {
        managed: false,
        rules: [
          '*filter',
          ':HOSTING-PANEL - [0:0]',
          `-A HOSTING-PANEL -p tcp -m tcp --dport ${forwardPort} -j ACCEPT`,
          'COMMIT',
        ],
      },
      failed: [],
    })
    const served = new ServedState(null)
    served.change(served.diff(state, new Set()), state.configVersion)
    const rendered = renderCaddyConfig(served, {
      ...testAgentConfig(storage, caddy.adminUrl, { httpsListen, httpListen: `127.0.0.1:${httpPort}` }),
      askUrl: agent.askUrl,
      agentVhost: null,
    })
    expect(await loadedConfig()).toEqual(JSON.parse(JSON.stringify(rendered)))
    const redirect = await plainGet(vhost.hostname)
    expect(redirect.status).toBe(308)
    expect(redirect.location).toMatch(/^https:\/\/shop\.example\.test:\d+\/path\?q=1$/)
  })

  it('should let the ask gate allow only hostnames of the applied state', async () => {
    expect(await ask('shop.example.test')).toBe(200)
    expect(await ask('SHOP.example.test')).toBe(200)
    expect(await ask('other.example.test')).toBe(403)
    expect(await ask('')).toBe(403)
  })

  it('should forward TCP bytes to the upstream', async () => {
    expect(await echoThrough(forwardPort, 'ping through the proxy device')).toBe(
      'ping through the proxy device',
    )
  })

  it('should not re-apply an equal or older version and answer the one serving', async () => {
    const before = await loadedConfig()
    const res = await apply({ configVersion: 1, vhosts: [], forwards: [] })
    expect(res.status).toBe(200)
    expect(res.body.appliedVersion).toBe(1)
    expect(await loadedConfig()).toEqual(before)
    expect(await ask('shop.example.test')).toBe(200)
  })

  it("should answer 422 with Caddy's error when it refuses a config, and keep serving the previous one", async () => {
    const blocker = createServer()
    const blocked = await freePort()
    await new Promise<void>((resolve) => blocker.listen({ host: '127.0.0.1', port: blocked }, resolve))
    // A second agent on the same Caddy whose HTTPS address is taken: Caddy itself refuses to bind it.
    const other = await startAgent(
      testAgentConfig(storage, caddy.adminUrl, {
        httpsListen: `127.0.0.1:${blocked}`,
        httpListen: `127.0.0.1:${await freePort()}`,
      }),
    )
    try {
      const before = await loadedConfig()
      const res = await signedPost(
        other.url,
        '/v2/edge/apply',
        { configVersion: 7, vhosts: [vhost], forwards: [] },
        secret,
      )
      expect(res.status, JSON.stringify(res.body)).toBe(422)
      expect(res.body.detail).toMatch(/^loading config: .*address already in use/)
      expect(other.agent.appliedVersion).toBe(0)
      expect(await loadedConfig()).toEqual(before)
      expect((await plainGet(vhost.hostname)).status).toBe(308)
    } finally {
      await other.close()
      await new Promise((resolve) => blocker.close(resolve))
    }
  })

  it('should stop the forwarder and close the ask gate after an apply without them', async () => {
    const res = await apply({ configVersion: 2, vhosts: [], forwards: [] })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.appliedVersion).toBe(2)
    await expect(echoThrough(forwardPort, 'x')).rejects.toThrow(/ECONNREFUSED/)
    expect(await ask('shop.example.test')).toBe(403)
    expect(await loadedConfig()).toMatchObject({ apps: { http: { servers: { edge: { routes: [] } } } } })
  })

  it('should report health with the proxy reachable and its version', async () => {
    const res = await signedPost(agent.url, '/v2/health', {}, secret)
    expect(res.status).toBe(200)
    expect(res.body).toEqual({
      agentVersion: AGENT_VERSION,
      contract: 'v2',
      appliedVersion: 2,
      proxy: { name: 'caddy', version: expect.stringMatching(/^v?2\.\d+\.\d+/), reachable: true },
    })
  })
})

describe("Caddy's admin API on a unix socket", () => {
  it('should be the default, in the state directory', () => {
    const installed = readConfig(['--secret', secret], { STATE_DIRECTORY: '/var/lib/hosting-panel-agent' })
    expect(installed.caddyAdmin).toBe('unix//var/lib/hosting-panel-agent/caddy-admin.sock')
    expect(readConfig(['--secret', secret, '--state-dir', '/srv/agent'], {}).caddyAdmin).toBe(
      'unix//srv/agent/caddy-admin.sock',
    )
    const given = (address: string) =>
      readConfig(['--secret', secret, '--caddy-admin', address], {}).caddyAdmin
    expect(given('unix//run/caddy/admin.sock|0600')).toBe('unix//run/caddy/admin.sock|0600')
    expect(given('127.0.0.1:2019')).toBe('127.0.0.1:2019')
    expect(() => given('unix/relative.sock')).toThrow(/neither unix\/\/<absolute path> nor host:port/)
  })

  it('should apply through the socket and keep admin.listen on it, never back on TCP', async () => {
    const socketCaddy = await startCaddyOnSocket()
    const socketStorage = await mkdtemp(path.join(tmpdir(), 'agent-storage-'))
    const onSocket = await startAgent(
      testAgentConfig(socketStorage, socketCaddy.admin, {
        httpsListen: `127.0.0.1:${await freePort()}`,
        httpListen: `127.0.0.1:${await freePort()}`,
      }),
    )
    try {
      expect(socketCaddy.admin).toMatch(/^unix\/\/.*\/admin\.sock$/)
      const vhost = { hostname: 'socket.example.test', upstream: '127.0.0.1:9', issuer: 'pebble' } as const
      const res = await signedPost(
        onSocket.url,
        '/v2/edge/apply',
        { configVersion: 1, vhosts: [vhost], forwards: [] },
        secret,
      )
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      const running = (await runningCaddyConfig(socketCaddy.admin)) as {
        admin: unknown
        apps: { http: { servers: { edge: { routes: unknown[] } } } }
      }
      expect(running.admin).toEqual({ listen: socketCaddy.admin })
      expect(running.apps.http.servers.edge.routes).toHaveLength(1)
      const health = await signedPost(onSocket.url, '/v2/health', {}, secret)
      expect(health.body.proxy).toMatchObject({ reachable: true })
    } finally {
      await onSocket.close()
      await socketCaddy.stop()
      await rm(socketStorage, { recursive: true, force: true })
    }
  })
})
