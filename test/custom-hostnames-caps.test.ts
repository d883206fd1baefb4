import { env } from 'cloudflare:workers'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { EdgeStateSchema } from '../src/agent-contract/v1'
import { hostnameCaps, MAX_PER_NODE } from '../src/custom-hostnames/caps'
import type { Env } from '../src/env'
import { type SiteFixture, siteWithToken, zoneName } from './custom-hostnames/fixture'
import { captureJobs } from './dns-servers/run-job'
import { type Caller, call, ok } from './helpers/http'
import { adminSession } from './helpers/principals'

const workerEnv = env as unknown as Env
let admin: Caller
let site: SiteFixture
let customer: string

beforeEach(async () => {
  captureJobs()
  admin = await adminSession()
  site = await siteWithToken(admin)
  customer = zoneName('capped')
})

afterEach(() => {
  workerEnv.CUSTOM_HOSTNAMES_PER_SITE = undefined
  workerEnv.CUSTOM_HOSTNAMES_PER_NODE = undefined
})

const register = (hostname: string, on: SiteFixture = site) =>
  call('customHostnames.register', { siteId: on.siteId, hostname }, on.app)

/** Another site (with its own site token) on the same instance, so on the same node. */
async function neighbour(): Promise<SiteFixture> {
  const created = await ok<{ id: string }>(
    'sites.create',
    { instanceId: site.instanceId, name: `next-${crypto.randomUUID().slice(0, 6)}` },
    admin,
  )
  const minted = await ok<{ id: string; token: string }>(
    'sites.tokens.create',
    { siteId: created.id, name: 'saas app' },
    admin,
  )
  return { ...site, siteId: created.id, app: { token: minted.token, tokenId: minted.id } }
}

describe('the caps on custom hostnames', () => {
  it('should default to 100,000 per site and per node, within the 110,000 vhosts a node agent takes', () => {
    expect(hostnameCaps(workerEnv)).toEqual({ perSite: 100_000, perNode: 100_000 })
    const vhost = { hostname: 'a.example.com', upstream: '10.0.0.5:80', issuer: 'pebble' as const }
    const state = (count: number) => ({ configVersion: 1, vhosts: Array(count).fill(vhost), forwards: [] })
    expect(EdgeStateSchema.safeParse(state(MAX_PER_NODE + 10_000)).success).toBe(true)
    expect(EdgeStateSchema.safeParse(state(MAX_PER_NODE + 10_001)).success).toBe(false)
  })

  it('should take lower caps from the environment and never a node cap above the ceiling', () => {
    workerEnv.CUSTOM_HOSTNAMES_PER_SITE = '3'
    workerEnv.CUSTOM_HOSTNAMES_PER_NODE = '100001'
    expect(hostnameCaps(workerEnv)).toEqual({ perSite: 3, perNode: MAX_PER_NODE })
    workerEnv.CUSTOM_HOSTNAMES_PER_SITE = 'many'
    expect(hostnameCaps(workerEnv).perSite).toBe(100_000)
  })

  it('should answer the 4th new hostname of a site capped at 3 with 422 limit_reached, and re-register the 3', async () => {
    workerEnv.CUSTOM_HOSTNAMES_PER_SITE = '3'
    for (const label of ['a', 'b', 'c']) expect((await register(`${label}.${customer}`)).status).toBe(200)
    const fourth = await register(`d.${customer}`)
    expect(fourth.status, fourth.text).toBe(422)
    expect(fourth.body).toMatchObject({ code: 'limit_reached' })
    expect((fourth.body as { detail: string }).detail).toMatch(/cap of 3 custom hostnames.*PER_SITE/)
    for (const label of ['a', 'b', 'c']) {
      const again = await register(`${label}.${customer}`)
      expect(again.status, again.text).toBe(200)
    }
    const { hostnames } = await ok<{ hostnames: unknown[] }>(
      'customHostnames.list',
      { siteId: site.siteId },
      site.app,
    )
    expect(hostnames).toHaveLength(3)
    // Removing one makes room again.
    await ok('customHostnames.remove', { siteId: site.siteId, hostname: `a.${customer}` }, site.app)
    expect((await register(`d.${customer}`)).status).toBe(200)
  })

  it('should let exactly the cap through when registers race at the boundary', async () => {
    workerEnv.CUSTOM_HOSTNAMES_PER_SITE = '3'
    expect((await register(`first.${customer}`)).status).toBe(200)
    const raced = await Promise.all(Array.from({ length: 8 }, (_, i) => register(`r${i}.${customer}`)))
    expect(raced.filter((result) => result.status === 200)).toHaveLength(2)
    for (const refused of raced.filter((result) => result.status !== 200)) {
      expect(refused.status, refused.text).toBe(422)
      expect(refused.body).toMatchObject({ code: 'limit_reached' })
    }
    const { hostnames } = await ok<{ hostnames: unknown[] }>(
      'customHostnames.list',
      { siteId: site.siteId },
      site.app,
    )
    expect(hostnames).toHaveLength(3)
  })

  it('should count every hostname of every site on the node, domains included, against the node cap', async () => {
    workerEnv.CUSTOM_HOSTNAMES_PER_NODE = '3'
    const other = await neighbour()
    await ok('domains.attach', { siteId: site.siteId, hostname: `www.${customer}`, driver: 'manual' }, admin)
    expect((await register(`a.${customer}`)).status).toBe(200)
    expect((await register(`b.${customer}`, other)).status).toBe(200)
    const over = await register(`c.${customer}`, other)
    expect(over.status, over.text).toBe(422)
    expect(over.body).toMatchObject({ code: 'limit_reached' })
    expect((over.body as { detail: string }).detail).toMatch(/node .*cap of 3 hostnames.*PER_NODE/)
    expect((await register(`b.${customer}`, other)).status).toBe(200)
    // A site on another node is not held back by this one.
    const elsewhere = await siteWithToken(admin)
    expect((await register(`c.${customer}`, elsewhere)).status).toBe(200)
  })

  it('should race several sites of one node to exactly the node cap', async () => {
    workerEnv.CUSTOM_HOSTNAMES_PER_NODE = '4'
    const sites = [site, await neighbour(), await neighbour()]
    const raced = await Promise.all(
      sites.flatMap((on, s) => Array.from({ length: 3 }, (_, i) => register(`n${s}-${i}.${customer}`, on))),
    )
    expect(raced.filter((result) => result.status === 200)).toHaveLength(4)
    expect(raced.filter((result) => result.status === 422)).toHaveLength(5)
  })
})
