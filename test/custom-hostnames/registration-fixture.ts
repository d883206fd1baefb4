import { env } from 'cloudflare:workers'
import { beforeEach } from 'vitest'
import type { Env } from '../../src/env'
import { enrollBoxes } from '../dns-servers/enroll'
import { captureJobs, type SentJob } from '../dns-servers/run-job'
import { FakePowerDns } from '../fakes/powerdns'
import { type Caller, ok } from '../helpers/http'
import { adminSession } from '../helpers/principals'
import { type SiteFixture, siteWithToken, zoneName } from './fixture'

// For test/custom-hostnames-<x>.test.ts, x one of probe, settings, hosted-register, routing, collisions,
// site-tokens, status and no-target. Importing this module registers their beforeEach: fresh fake boxes
// (enrolled once per file), the captured JOBS queue, a new site and a hosted zone.

export interface Registration {
  id: string
  hostname: string
  tier: string
  state: string
  records: { type: string; name: string; value: string; ttl: number }[]
  reason?: string
}
export interface Status {
  state: string
  tier: string
  records: Registration['records']
  dns: { resolves: boolean; checkedAt: string }
  cert: { issued: boolean; notAfter?: string; observedAt?: string }
  failureRemedy?: string
}

export const workerEnv = env as unknown as Env
export const boxes = [
  new FakePowerDns('https://pdns-a.hostnames.test', 'hostnames-key-a'),
  new FakePowerDns('https://pdns-b.hostnames.test', 'hostnames-key-b'),
]
export const [boxA, boxB] = boxes as [FakePowerDns, FakePowerDns]
export let admin: Caller
export let sent: SentJob[]
export let site: SiteFixture
export let zone: string
let enrolled = false

beforeEach(async () => {
  for (const box of boxes) box.reset().install()
  sent = captureJobs()
  admin = await adminSession()
  if (!enrolled) {
    await enrollBoxes(admin, 'hostnames', boxes)
    enrolled = true
  }
  site = await siteWithToken(admin)
  zone = zoneName('hosted')
  await ok('dnsServers.zones.create', { name: zone }, admin)
})

export async function allowList(allowedZones: string[], siteId = site.siteId) {
  return ok<{ warning: string | null }>('customHostnames.settings.set', { siteId, allowedZones }, admin)
}

export async function zoneId(name: string): Promise<string | undefined> {
  const zones = await ok<{ id: string; name: string }[]>('dnsServers.zones.list', {}, admin)
  return zones.find((z) => z.name === name)?.id
}
