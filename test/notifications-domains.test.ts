import { beforeEach, describe, expect, it } from 'vitest'
import { type DomainWorld, domainWorld, getDomain } from './domains/fixture'
import { ok } from './helpers/http'
import { drainJobs } from './helpers/jobs'
import { type OpsInbox, type OpsNotification, opsInbox } from './helpers/notifications'

// A domain turning failed raises one `domain.failed` notification; turning green again clears it.

let world: DomainWorld
let inbox: OpsInbox

beforeEach(async () => {
  world = await domainWorld()
  inbox = await opsInbox(world.admin)
})

const received = () => inbox.hooks.map((hook) => JSON.parse(hook.body) as OpsNotification)

describe('domain notifications', () => {
  it('should notify once when a domain fails, and send the all-clear when it goes green', async () => {
    const hostname = `failing-${crypto.randomUUID().slice(0, 8)}.customer-example.com`
    world.doh.set(hostname, 'CNAME', [`${world.target}.`])
    world.agent.refuseApply = 'loading new config: http.handlers.reverse_proxy: invalid upstream'
    const attach = () =>
      ok<{ domainId: string }>(
        'domains.attach',
        { siteId: world.site.siteId, hostname, driver: 'manual' },
        world.admin,
      )
    const { domainId } = await attach()
    // Every job, the notification's deliveries among them, as the queue would run them.
    await drainJobs(world.sent, '', 40)
    expect(await getDomain(domainId, world.admin)).toMatchObject({ certState: 'failed' })
    const [failed, ...more] = received()
    expect(more).toEqual([])
    expect(failed).toMatchObject({
      event: 'operational.raised',
      kind: 'domain.failed',
      key: `domain:${domainId}`,
      subject: `Domain ${hostname} failed`,
      detail: expect.stringContaining('invalid upstream'),
      link: `https://panel.test/sites/${world.site.siteId}`,
    })
    expect(inbox.email).toHaveBeenCalledTimes(1)
    world.agent.refuseApply = null
    await attach()
    await drainJobs(world.sent, '', 40)
    expect(await getDomain(domainId, world.admin)).toMatchObject({ certState: 'issued' })
    expect(received().slice(1)).toEqual([
      expect.objectContaining({ event: 'operational.resolved', key: `domain:${domainId}` }),
    ])
  })
})
