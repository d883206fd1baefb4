import { mkdtemp, rm } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningAgent, startAgent } from '../../node-agent/start.ts'
import { freePort, signedPost, testAgentConfig } from '../../node-agent/testing/harness.ts'
import type { Vhost } from '../../src/agent-contract/v1.ts'

// The ask gate Caddy calls before issuing: the panel's issuable mark, or the app's own ask URL, decides. Caddy's
// admin API is a stand-in that accepts every config; the gate never talks to Caddy.

let agent: RunningAgent
let dir: string
let admin: Server
let app: Server
let appUrl: string
const asked: URL[] = []
const secret = testAgentConfig('', '').secret

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen({ host: '127.0.0.1', port: 0 }, resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

beforeAll(async () => {
  admin = createServer((request, response) => {
    request.resume()
    response.end()
  })
  app = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://app')
    asked.push(url)
    response.writeHead(url.pathname === '/allow' ? 200 : 403)
    response.end()
  })
  const adminUrl = await listen(admin)
  appUrl = await listen(app)
  dir = await mkdtemp(path.join(tmpdir(), 'agent-ask-'))
  agent = await startAgent(testAgentConfig(dir, adminUrl))
})

afterAll(async () => {
  await agent?.close()
  await rm(dir, { recursive: true, force: true })
  await Promise.all([admin, app].map((server) => new Promise((resolve) => server?.close(resolve))))
})

const ask = async (domain: string) => (await fetch(`${agent.askUrl}?domain=${domain}`)).status
const vhost = (hostname: string, fields: Partial<Vhost>): Vhost => ({
  hostname,
  upstream: '10.0.0.5:80',
  issuer: 'pebble',
  ...fields,
})

describe('the ask gate', () => {
  beforeAll(async () => {
    const applied = await signedPost(
      agent.url,
      '/v2/edge/apply',
      {
        configVersion: 1,
        vhosts: [
          vhost('verified.example.test', { issuable: true }),
          vhost('unverified.example.test', { issuable: false }),
          vhost('older-panel.example.test', {}),
          vhost('app-allows.example.test', { issuable: false, askUrl: `${appUrl}/allow?key=k1` }),
          vhost('app-denies.example.test', { issuable: true, askUrl: `${appUrl}/deny` }),
          vhost('app-down.example.test', {
            issuable: true,
            askUrl: `http://127.0.0.1:${await freePort()}/ask`,
          }),
        ],
        forwards: [],
      },
      secret,
    )
    expect(applied.status, JSON.stringify(applied.body)).toBe(200)
  })

  it('should allow a vhost the panel marked issuable and deny one it did not', async () => {
    expect(await ask('verified.example.test')).toBe(200)
    expect(await ask('unverified.example.test')).toBe(403)
    expect(await ask('not-applied.example.test')).toBe(403)
  })

  it('should allow a vhost without the mark, as a panel before it meant', async () => {
    expect(await ask('older-panel.example.test')).toBe(200)
  })

  it("should follow the app's ask URL whatever the mark: 200 allows, 403 or no answer denies", async () => {
    asked.length = 0
    expect(await ask('app-allows.example.test')).toBe(200)
    expect(await ask('app-denies.example.test')).toBe(403)
    expect(await ask('app-down.example.test')).toBe(403)
    expect(asked.map((url) => `${url.pathname}${url.search}`)).toEqual([
      '/allow?key=k1&domain=app-allows.example.test',
      '/deny?domain=app-denies.example.test',
    ])
  })
})
