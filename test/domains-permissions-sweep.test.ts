import { describe, expect, it } from 'vitest'
import { domainSweepTask } from '../src/domains/sweep-cron'
import { admin, attach, everything, sent, site, zone } from './domains/attach-fixture'
import { ageStep, getDomain, workerEnv } from './domains/fixture'
import { call } from './helpers/http'
import { operatorSession } from './helpers/principals'

describe('permissions and the sweep', () => {
  it('should let an operator read but not attach', async () => {
    const operator = await operatorSession(admin)
    const { domainId } = await attach({ hostname: `op.${zone}` })
    expect((await call('domains.get', { id: domainId }, operator)).status).toBe(200)
    expect((await call('domains.list', { siteId: site.siteId }, operator)).status).toBe(200)
    expect((await call('domains.drivers', {}, operator)).status).toBe(200)
    const refused = await call('domains.attach', { siteId: site.siteId, hostname: `op2.${zone}` }, operator)
    expect(refused.status).toBe(403)
  })

  it('should queue the next step again for a chain that went quiet', async () => {
    const { domainId } = await attach({ hostname: `lost.${zone}` })
    sent.length = 0
    await domainSweepTask.run(workerEnv, Date.now())
    expect(sent).toEqual([])
    await ageStep(domainId, 3 * 60 * 60 * 1000)
    await domainSweepTask.run(workerEnv, Date.now())
    expect(sent.map((job) => job.body)).toEqual([
      expect.objectContaining({ type: 'domain.step', id: domainId }),
    ])
    await everything()
    expect((await getDomain(domainId, admin)).certState).toBe('issued')
  })
})
