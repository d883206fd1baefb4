import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { type SiteFixture, siteWithToken, zoneName } from '../custom-hostnames/fixture'
import { captureJobs } from '../dns-servers/run-job'
import { type Caller, ok } from '../helpers/http'
import { adminSession } from '../helpers/principals'
import { type Probe, type ProbeDetail, probeRecord } from './catalogue-fixture'

let admin: Caller
let site: SiteFixture

beforeAll(async () => {
  admin = await adminSession()
  site = await siteWithToken(admin)
})

beforeEach(() => {
  // The attach and detach steps are not this file's subject: their jobs stay queued.
  captureJobs()
})

const probesOf = (domainId: string, includeArchived = false) =>
  ok<Probe[]>('probes.list', { targetKind: 'domain', targetId: domainId, includeArchived }, admin)

describe("a domain's cert-expiry probe", () => {
  it('should be created by domains.attach with the default cert config, and scanned', async () => {
    const hostname = `www.${zoneName('certprobe')}`
    const { domainId } = await ok<{ domainId: string }>(
      'domains.attach',
      { siteId: site.siteId, hostname, driver: 'manual' },
      admin,
    )
    const [probe, ...others] = await probesOf(domainId)
    expect(others).toEqual([])
    expect(probe).toMatchObject({
      type: 'cert',
      targetKind: 'domain',
      targetId: domainId,
      target: hostname,
      enabled: true,
      state: 'paused',
      archivedAt: null,
      config: { certWarnDays: 14, intervalSeconds: 3600 },
    })
    expect((await probeRecord(probe?.id ?? ''))?.nextCheckAt).not.toBeNull()
    await ok('domains.attach', { siteId: site.siteId, hostname, driver: 'manual' }, admin)
    expect(await probesOf(domainId)).toHaveLength(1)
  })

  it('should be archived by domains.detach, keeping its events', async () => {
    const hostname = `www.${zoneName('certprobe')}`
    const { domainId } = await ok<{ domainId: string }>(
      'domains.attach',
      { siteId: site.siteId, hostname, driver: 'manual' },
      admin,
    )
    const [probe] = await probesOf(domainId)
    expect(await ok('domains.detach', { id: domainId }, admin)).toEqual({ detached: true })
    expect(await probesOf(domainId)).toEqual([])
    const [archived] = await probesOf(domainId, true)
    expect(archived?.id).toBe(probe?.id)
    expect(archived?.archivedAt).not.toBeNull()
    expect((await probeRecord(probe?.id ?? ''))?.nextCheckAt).toBeNull()
    const detail = await ok<ProbeDetail>('probes.get', { id: probe?.id }, admin)
    expect(detail).toMatchObject({ state: 'paused', enabled: true })
  })
})
