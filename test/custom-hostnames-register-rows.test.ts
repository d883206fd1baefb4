import { beforeEach, describe, expect, it } from 'vitest'
import { type SiteFixture, siteWithToken, zoneName } from './custom-hostnames/fixture'
import { seedHostnames } from './custom-hostnames/seed'
import { captureJobs } from './dns-servers/run-job'
import { countRowsRead } from './helpers/d1-meter'
import { type Caller, ok } from './helpers/http'
import { adminSession } from './helpers/principals'

// A register's reads must not grow with the hostnames its site and node hold: the caps guard counters, and every
// other read is keyed by the site or the hostname.

let admin: Caller

beforeEach(async () => {
  captureJobs()
  admin = await adminSession()
})

/** The D1 rows one register (of a hostname new to a site seeded with `seeded` hostnames) reads. */
async function rowsOfOneRegister(seeded: number): Promise<number> {
  const site: SiteFixture = await siteWithToken(admin)
  const zone = zoneName('seeded')
  await seedHostnames(site, zone, seeded)
  // A first register of the token warms what a caller's first call reads once (its principal, its windows).
  await ok('customHostnames.register', { siteId: site.siteId, hostname: `warm.${zone}` }, site.app)
  const counting = countRowsRead()
  await ok('customHostnames.register', { siteId: site.siteId, hostname: `new.${zone}` }, site.app)
  return counting.stop()
}

describe('the D1 rows one register reads', () => {
  it('should be the same on a site and node of 10 hostnames as on one of 10,000', async () => {
    const small = await rowsOfOneRegister(10)
    const large = await rowsOfOneRegister(10_000)
    console.log(`rows read by one register: ${small} at 10 seeded hostnames, ${large} at 10,000`)
    expect(small).toBeGreaterThan(0)
    expect(large).toBeLessThanOrEqual(small + 5)
  }, 60_000)
})
