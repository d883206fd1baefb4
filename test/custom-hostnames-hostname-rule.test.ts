import { env } from 'cloudflare:workers'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Env } from '../src/env'
import { type SiteFixture, siteWithToken } from './custom-hostnames/fixture'
import { enrollBoxes } from './dns-servers/enroll'
import { captureJobs } from './dns-servers/run-job'
import { FakePowerDns } from './fakes/powerdns'
import { type Caller, type CallResult, call, ok } from './helpers/http'
import { adminSession } from './helpers/principals'

// The hostname rule: the syntax everywhere; the suffix decided where the zones are known, so a name in a zone the
// panel controls is always taken and a special-use name outside them only in development or with pebble.

const workerEnv = env as unknown as Env
const boxes = [new FakePowerDns('https://pdns-a.rule.test', 'rule-key-a')]
let admin: Caller
let site: SiteFixture
let enrolled = false

beforeEach(async () => {
  for (const box of boxes) box.reset().install()
  captureJobs()
  admin = await adminSession()
  if (!enrolled) {
    await enrollBoxes(admin, 'rule', boxes)
    await ok('dnsServers.zones.create', { name: 'hosted.test' }, admin)
    enrolled = true
  }
  site = await siteWithToken(admin)
})

afterEach(() => {
  workerEnv.ENVIRONMENT = 'production'
})

const hostnameCall = (name: 'probe' | 'register', hostname: string, on: SiteFixture = site) =>
  call(`customHostnames.${name}`, { siteId: on.siteId, hostname }, on.app)
const attach = (hostname: string, issuer: 'pebble' | 'letsencrypt', siteId = site.siteId) =>
  call('domains.attach', { siteId, hostname, issuer, driver: 'manual' }, admin)

function expectRefused(result: CallResult, message: RegExp): void {
  expect(result.status, result.text).toBe(400)
  expect(result.body).toMatchObject({
    code: 'validation_failed',
    issues: [{ path: 'hostname', message: expect.stringMatching(message) }],
  })
}

/** A site on a node whose ssl-issuer default is a pebble account. */
async function pebbleSite(): Promise<SiteFixture> {
  const pebble = await siteWithToken(admin)
  const pem =
    '-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg\n-----END PRIVATE KEY-----'
  const account = await ok<{ id: string }>(
    'accounts.create',
    { kind: 'ssl-issuer', name: `pebble-${crypto.randomUUID().slice(0, 6)}`, provider: 'pebble', token: pem },
    admin,
  )
  await ok(
    'accounts.setDefault',
    { scope: 'node', scopeId: pebble.nodeId, kind: 'ssl-issuer', accountId: account.id },
    admin,
  )
  return pebble
}

describe('a hostname in a zone the panel controls', () => {
  it('should take any name under a self-hosted zone named hosted.test, in production', async () => {
    expect(
      await ok('customHostnames.probe', { siteId: site.siteId, hostname: 'shop.hosted.test' }, site.app),
    ).toMatchObject({ tier: 'hosted', zoneName: 'hosted.test', reason: 'zone-not-allow-listed' })
    const registered = await hostnameCall('register', 'shop.hosted.test')
    expect(registered.status, registered.text).toBe(200)
    expect(registered.body).toMatchObject({ tier: 'hosted', state: 'instructions' })
    const domain = await attach('www.hosted.test', 'letsencrypt')
    expect(domain.status, domain.text).toBe(200)
  })
})

describe('a special-use name outside every controlled zone', () => {
  it('should be refused in production with the letsencrypt issuer, by probe, register and domains.attach', async () => {
    for (const name of ['probe', 'register'] as const)
      expectRefused(await hostnameCall(name, 'shop.customer.test'), /special-use name \.test/)
    expectRefused(await hostnameCall('probe', 'nas.home.arpa'), /special-use name \.home\.arpa/)
    expectRefused(await attach('www.customer.test', 'letsencrypt'), /special-use/)
    expect(await ok('customHostnames.list', { siteId: site.siteId }, site.app)).toEqual({
      hostnames: [],
      nextCursor: null,
    })
  })

  it('should be taken in development, planned in the zone of its last two labels', async () => {
    workerEnv.ENVIRONMENT = 'development'
    expect(
      await ok('customHostnames.probe', { siteId: site.siteId, hostname: 'shop.customer.test' }, site.app),
    ).toMatchObject({ tier: 'external', zoneName: 'customer.test', reason: 'external-zone' })
    const registered = await hostnameCall('register', 'shop.customer.test')
    expect(registered.status, registered.text).toBe(200)
    expect(registered.body).toMatchObject({
      tier: 'external',
      state: 'instructions',
      reason: 'external-zone',
    })
    const domain = await attach('www.customer.test', 'letsencrypt')
    expect(domain.status, domain.text).toBe(200)
  })

  it('should be taken in production when the certificates come from pebble', async () => {
    const pebble = await pebbleSite()
    expect((await hostnameCall('probe', 'shop.pebble-customer.test', pebble)).status).toBe(200)
    expect((await hostnameCall('register', 'shop.pebble-customer.test', pebble)).status).toBe(200)
    expect((await attach('www.pebble-customer.test', 'pebble')).status).toBe(200)
  })
})

describe('what no mode takes', () => {
  const refused: [string, RegExp][] = [
    ['203.0.113.10', /IP address/],
    ['shop.10', /IP address/],
    ['*.hosted.test', /wildcard/],
    ['Shop.Hosted.test', /lowercase/],
    [`${'a.'.repeat(122)}hosted.test`, /253/],
    [`${'a'.repeat(64)}.hosted.test`, /63/],
    ['shop.hosted.test.', /trailing dot/],
  ]

  it('should refuse IPs, wildcards, uppercase, over 253 characters and labels over 63, whatever the mode', async () => {
    const pebble = await pebbleSite()
    for (const environment of ['production', 'development']) {
      workerEnv.ENVIRONMENT = environment
      for (const [hostname, message] of refused) {
        for (const on of [site, pebble]) {
          expectRefused(await hostnameCall('probe', hostname, on), message)
          expectRefused(await hostnameCall('register', hostname, on), message)
        }
        expectRefused(await attach(hostname, 'pebble'), message)
      }
    }
  })

  it('should refuse a public suffix itself outside the controlled zones, in production', async () => {
    expectRefused(await hostnameCall('register', 'co.uk'), /suffix itself/)
    expectRefused(await attach('co.uk', 'letsencrypt'), /suffix itself/)
  })
})
