import { eq } from 'drizzle-orm'
import { beforeEach, describe, expect, it } from 'vitest'
import { db } from '../src/db/client'
import { domains } from '../src/db/schema/domains'
import { siteWithToken } from './custom-hostnames/fixture'
import {
  attachGreen,
  certProbesOf,
  type DomainWorld,
  domainWorld,
  getDomain,
  reportCertificates,
  workerEnv,
} from './domains/fixture'
import { ok } from './helpers/http'
import { runJob } from './helpers/jobs'

// Caddy renews certificates by itself; the node reports what it serves, and the domain (with its cert probe)
// follows the certificate actually served: a later notAfter from the node that routes the domain.

const DAY = 86_400_000
const inDays = (days: number) => new Date(Date.now() + days * DAY).toISOString()
let world: DomainWorld

beforeEach(async () => {
  world = await domainWorld()
})

/** Runs the domain's cert probe's check now; answers what it said. */
async function checkCertProbe(domainId: string): Promise<{ outcome: string; detail: string }> {
  const [probe] = (await certProbesOf(domainId, world.admin)).filter((p) => p.archivedAt === null)
  if (!probe) throw new Error('the domain has no live cert probe')
  await runJob({ type: 'probe.check', probeId: probe.id, scheduledAt: Date.now() })
  const detail = await ok<{ lastResult: { outcome: string; detail: string } }>(
    'probes.get',
    { id: probe.id },
    world.admin,
  )
  return detail.lastResult
}

// 80 days pass: the certificate the attach saw is 10 days from its end.
async function ageCertificate(domainId: string): Promise<void> {
  await db(workerEnv.DB)
    .update(domains)
    .set({ certExpiresAt: new Date(Date.now() + 10 * DAY + 3_600_000) })
    .where(eq(domains.id, domainId))
}

describe('a renewal Caddy did on its own', () => {
  it('should move certExpiresAt and the cert probe when the routing node reports the later certificate', async () => {
    const hostname = `renewed.${crypto.randomUUID().slice(0, 8)}-shop.com`
    const domainId = await attachGreen(world, hostname)
    await ageCertificate(domainId)
    expect(await checkCertProbe(domainId)).toMatchObject({
      outcome: 'degraded',
      detail: expect.stringContaining('expires in 10 days'),
    })

    const renewed = { hostname, notAfter: inDays(90), serial: '00000000000000ff' }
    expect(await reportCertificates(world.site.nodeId, [renewed])).toEqual({ accepted: 1, ignored: 0 })
    const after = await getDomain(domainId, world.admin)
    expect(after).toMatchObject({
      certExpiresAt: renewed.notAfter,
      certState: 'issued',
      dnsState: 'verified',
    })
    expect(await checkCertProbe(domainId)).toMatchObject({
      outcome: 'up',
      detail: expect.stringContaining(`valid until ${renewed.notAfter.slice(0, 10)}`),
    })

    // A late report of the older certificate changes nothing: the domain follows the newest it was shown.
    const older = { hostname, notAfter: inDays(10), serial: '00000000000000fe' }
    expect(await reportCertificates(world.site.nodeId, [older])).toEqual({ accepted: 1, ignored: 0 })
    expect((await getDomain(domainId, world.admin)).certExpiresAt).toBe(renewed.notAfter)
  })

  it('should ignore what another node reports for the hostname', async () => {
    const hostname = `elsewhere.${crypto.randomUUID().slice(0, 8)}-shop.com`
    const domainId = await attachGreen(world, hostname)
    const before = (await getDomain(domainId, world.admin)).certExpiresAt
    const other = await siteWithToken(world.admin)
    const foreign = { hostname, notAfter: inDays(200), serial: '0000000000000abc' }
    expect(await reportCertificates(other.nodeId, [foreign])).toEqual({ accepted: 0, ignored: 1 })
    expect((await getDomain(domainId, world.admin)).certExpiresAt).toBe(before)
  })

  it('should ignore reports once the domain is being detached', async () => {
    const hostname = `leaving.${crypto.randomUUID().slice(0, 8)}-shop.com`
    const domainId = await attachGreen(world, hostname)
    const before = (await getDomain(domainId, world.admin)).certExpiresAt
    await ok('domains.detach', { id: domainId }, world.admin)
    const late = { hostname, notAfter: inDays(120), serial: '0000000000000def' }
    expect(await reportCertificates(world.site.nodeId, [late])).toEqual({ accepted: 0, ignored: 1 })
    expect((await getDomain(domainId, world.admin)).certExpiresAt).toBe(before)
  })
})
