import { env } from 'cloudflare:workers'
import { beforeEach, describe, expect, it } from 'vitest'
import type { EdgeStatePage } from '../src/agent-contract/edge-changes'
import { db } from '../src/db/client'
import type { Env } from '../src/env'
import { addHttpRoute } from '../src/routes/http-route'
import { type SiteFixture, siteWithToken } from './custom-hostnames/fixture'
import { askEdgeStatePage } from './helpers/agent-callback'
import { type Caller, ok, send } from './helpers/http'
import { adminSession } from './helpers/principals'
import { seededHostname, seedServedHostnames } from './helpers/seed-hostnames'

// The catch-up callback for a state larger than one body (contract v2, agent 0.4.0): pages of at most 10,000
// vhosts in hostname order, forwards on the first, each page at the desired version it was read at.

const database = db((env as unknown as Env).DB)
let admin: Caller
let site: SiteFixture
let zone: string

beforeEach(async () => {
  admin = await adminSession()
  site = await siteWithToken(admin)
  zone = `${crypto.randomUUID().slice(0, 8)}-pages.com`
})

async function page(cursor: string | null): Promise<EdgeStatePage> {
  const answer = await askEdgeStatePage(site.nodeId, { cursor })
  expect(answer.status, answer.text).toBe(200)
  return answer.body as EdgeStatePage
}

describe('POST /api/agent/v2/edge-state-parts', () => {
  it('should page 10,001 vhosts in hostname order, forwards first, and show a change between pages by its version', async () => {
    const seeded = await ok<{ id: string }>(
      'sites.create',
      { instanceId: site.instanceId, name: 'seeded' },
      admin,
    )
    await seedServedHostnames({ ...site, siteId: seeded.id }, zone, 10_001)
    await ok('routes.createRaw', { instanceId: site.instanceId, listenPort: 2222, targetPort: 22 }, admin)
    const first = await page(null)
    expect(first.configVersion).toBe(2)
    expect(first.vhosts).toHaveLength(10_000)
    expect(first.vhosts[0]).toEqual({
      hostname: seededHostname(zone, 0),
      upstream: '10.0.0.5:80',
      issuer: 'pebble',
      issuable: true,
    })
    expect(first.vhosts.at(-1)?.hostname).toBe(seededHostname(zone, 9_999))
    expect(first.forwards).toEqual([{ listenPort: 2222, proto: 'tcp', upstream: '10.0.0.5:22' }])
    expect(first.nextCursor).toEqual(expect.any(String))

    const added = await addHttpRoute(database, {
      siteId: site.siteId,
      hostname: `zz.${zone}`,
      issuer: 'pebble',
    })
    const [write, ...writes] = added.writes
    if (write) await database.batch([write, ...writes])
    const second = await page(first.nextCursor)
    expect(second).toEqual({
      configVersion: 3,
      vhosts: [
        expect.objectContaining({ hostname: seededHostname(zone, 10_000) }),
        { hostname: `zz.${zone}`, upstream: '10.0.0.5:80', issuer: 'pebble', issuable: false },
      ],
      forwards: [],
      nextCursor: null,
    })
  }, 120_000)

  it('should answer version 0 with nothing for a node without a state', async () => {
    expect(await page(null)).toEqual({ configVersion: 0, vhosts: [], forwards: [], nextCursor: null })
  })

  it('should answer 400 naming cursor for a bad one, and 401 unsigned or signed with another secret', async () => {
    const bad = await askEdgeStatePage(site.nodeId, { cursor: 5 })
    expect(bad.status).toBe(400)
    expect(bad.body).toMatchObject({
      code: 'validation_failed',
      issues: [expect.objectContaining({ path: 'cursor' })],
    })
    const unsigned = await send('/api/agent/v2/edge-state-parts', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-node-id': site.nodeId },
      body: JSON.stringify({ cursor: null }),
    })
    expect(unsigned.status).toBe(401)
    expect((await askEdgeStatePage(site.nodeId, { cursor: null }, 'another-secret-0123456789')).status).toBe(
      401,
    )
  })
})
