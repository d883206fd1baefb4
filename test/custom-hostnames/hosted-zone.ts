import { enrollBoxes } from '../dns-servers/enroll'
import { captureJobs, type SentJob } from '../dns-servers/run-job'
import { FakePowerDns } from '../fakes/powerdns'
import { type Caller, ok } from '../helpers/http'
import { adminSession } from '../helpers/principals'
import { type SiteFixture, siteWithToken, zoneName } from './fixture'

/** What one test of a hosted zone starts from: a fresh site whose custom hostnames may take a fresh zone. */
export interface HostedZoneWorld {
  admin: Caller
  sent: SentJob[]
  site: SiteFixture
  zone: string
  zoneId: string
}

/**
 * Two fake PowerDNS boxes of the file's own (`tag` names them), enrolled on the first test; `fresh()` resets them
 * and makes the test's site and its allow-listed hosted zone.
 */
export function hostedZones(tag: string) {
  const boxes = [
    new FakePowerDns(`https://pdns-a.${tag}.test`, `${tag}-key-a`),
    new FakePowerDns(`https://pdns-b.${tag}.test`, `${tag}-key-b`),
  ] as [FakePowerDns, FakePowerDns]
  let enrolled = false
  return {
    boxes,
    async fresh(): Promise<HostedZoneWorld> {
      for (const box of boxes) box.reset().install()
      const sent = captureJobs()
      const admin = await adminSession()
      if (!enrolled) {
        await enrollBoxes(admin, tag, boxes)
        enrolled = true
      }
      const site = await siteWithToken(admin)
      const zone = zoneName(tag)
      const zoneId = (await ok<{ id: string }>('dnsServers.zones.create', { name: zone }, admin)).id
      await ok('customHostnames.settings.set', { siteId: site.siteId, allowedZones: [zone] }, admin)
      return { admin, sent, site, zone, zoneId }
    },
  }
}
