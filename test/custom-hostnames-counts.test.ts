import { env } from 'cloudflare:workers'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Env } from '../src/env'
import { type SiteFixture, zoneName } from './custom-hostnames/fixture'
import { type HostedZoneWorld, hostedZones } from './custom-hostnames/hosted-zone'
import { type Caller, call, ok } from './helpers/http'
import { drainJobs } from './helpers/jobs'

// The caps guard counters (site_hostname_counts, node_hostname_counts) instead of counting rows: whatever inserts
// or deletes a custom hostname or a claim must leave each counter equal to the rows it stands for.

const workerEnv = env as unknown as Env
const hosted = hostedZones('counts')
let world: HostedZoneWorld

beforeEach(async () => {
  world = await hosted.fresh()
})

afterEach(() => {
  workerEnv.CUSTOM_HOSTNAMES_PER_SITE = undefined
  workerEnv.CUSTOM_HOSTNAMES_PER_NODE = undefined
})

async function number(query: string, value: string): Promise<number> {
  const row = await workerEnv.DB.prepare(query).bind(value).first<{ n: number | null }>()
  return row?.n ?? 0
}

/** The counters of the site and of its node, beside the rows they count. */
async function counted(site: SiteFixture) {
  return {
    site: await number(
      'SELECT custom_hostnames AS n FROM site_hostname_counts WHERE site_id = ?',
      site.siteId,
    ),
    siteRows: await number('SELECT count(*) AS n FROM custom_hostnames WHERE site_id = ?', site.siteId),
    node: await number('SELECT claims AS n FROM node_hostname_counts WHERE node_id = ?', site.nodeId),
    nodeRows: await number(
      `SELECT count(*) AS n FROM hostname_claims WHERE site_id IN
        (SELECT sites.id FROM sites JOIN instances ON instances.id = sites.instance_id WHERE instances.node_id = ?)`,
      site.nodeId,
    ),
  }
}

async function expectExact(site: SiteFixture, siteRows: number, nodeRows: number): Promise<void> {
  expect(await counted(site)).toEqual({ site: siteRows, siteRows, node: nodeRows, nodeRows })
}

/** Another site with its own token on the same instance, so on the same node. */
async function neighbour(admin: Caller, site: SiteFixture): Promise<SiteFixture> {
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

const register = (site: SiteFixture, hostname: string) =>
  call('customHostnames.register', { siteId: site.siteId, hostname }, site.app)
const remove = (site: SiteFixture, hostname: string) =>
  ok<{ state: string }>('customHostnames.remove', { siteId: site.siteId, hostname }, site.app)

describe('the hostname counters', () => {
  it('should stay exact through register, register again, remove, the removal job, attach and detach', async () => {
    const { admin, sent, site, zone } = world
    const outside = zoneName('instructions')
    for (const hostname of [`a.${zone}`, `b.${zone}`, `c.${outside}`])
      expect((await register(site, hostname)).status).toBe(200)
    await drainJobs(sent, 'custom-hostname.')
    await expectExact(site, 3, 3)
    // A register of a held hostname counts nothing twice.
    expect((await register(site, `a.${zone}`)).status).toBe(200)
    await expectExact(site, 3, 3)
    // An instructions row goes at once; a written one through the removal job, counted out only when it goes.
    expect(await remove(site, `c.${outside}`)).toEqual({ state: 'removed' })
    await expectExact(site, 2, 2)
    expect(await remove(site, `a.${zone}`)).toEqual({ state: 'removing' })
    await expectExact(site, 2, 2)
    await drainJobs(sent, 'custom-hostname.')
    await expectExact(site, 1, 1)
    // A domain is a claim of the node, not a custom hostname of the site.
    const { domainId } = await ok<{ domainId: string }>(
      'domains.attach',
      { siteId: site.siteId, hostname: `www.${outside}`, driver: 'manual' },
      admin,
    )
    await expectExact(site, 1, 2)
    sent.splice(0)
    await ok('domains.detach', { id: domainId }, admin)
    await drainJobs(sent, 'domain.')
    expect((await call('domains.get', { id: domainId }, admin)).status).toBe(404)
    await expectExact(site, 1, 1)
    // Another site of the node counts on the node, and on its own site only.
    const other = await neighbour(admin, site)
    expect((await register(other, `d.${outside}`)).status).toBe(200)
    await expectExact(site, 1, 2)
    await expectExact(other, 1, 2)
  })

  it('should stay exact when registers and removes race, and let exactly the caps through', async () => {
    const { admin, site } = world
    const other = await neighbour(admin, site)
    const customer = zoneName('raced')
    workerEnv.CUSTOM_HOSTNAMES_PER_SITE = '4'
    workerEnv.CUSTOM_HOSTNAMES_PER_NODE = '6'
    expect((await register(site, `held.${customer}`)).status).toBe(200)
    const raced = await Promise.all([
      ...Array.from({ length: 5 }, (_, i) => register(site, `s${i}.${customer}`)),
      ...Array.from({ length: 5 }, (_, i) => register(other, `o${i}.${customer}`)),
      register(site, `held.${customer}`),
      call('customHostnames.remove', { siteId: site.siteId, hostname: `held.${customer}` }, site.app),
    ])
    for (const result of raced) expect([200, 404, 409, 422], result.text).toContain(result.status)
    const after = await counted(site)
    expect(after.site).toBe(after.siteRows)
    expect(after.node).toBe(after.nodeRows)
    expect(after.siteRows).toBeLessThanOrEqual(4)
    expect(after.nodeRows).toBe(6)
    expect(await counted(other)).toMatchObject({ node: 6, site: 6 - after.siteRows })
  })

  it('should refuse to move an instance to another node or a site to another instance', async () => {
    const { site } = world
    const move = workerEnv.DB.prepare('UPDATE instances SET node_id = ? WHERE id = ?').bind(
      'x',
      site.instanceId,
    )
    await expect(move.run()).rejects.toThrow(/does not change node/)
    const reseat = workerEnv.DB.prepare('UPDATE sites SET instance_id = ? WHERE id = ?').bind(
      'x',
      site.siteId,
    )
    await expect(reseat.run()).rejects.toThrow(/does not change instance/)
  })
})
