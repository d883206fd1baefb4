import { beforeEach, describe, expect, it } from 'vitest'
import {
  notifyMessages,
  type ProbeNotification,
  type ProbeNotifyMessage,
} from '../src/notifications/probes/jobs'
import type { MonitorSnapshot } from '../src/probes/monitor/api'
import { attachGreen, certProbesOf, type DomainWorld, domainWorld, getDomain } from './domains/fixture'
import { runCron } from './helpers/changelog'
import { ok } from './helpers/http'
import { drainJobs, runJob } from './helpers/jobs'
import { type OpsInbox, type OpsNotification, opsInbox } from './helpers/notifications'

// A domain turning failed raises one `domain.failed` notification; turning green again clears it. The cert probe
// a domain gets by itself, with no targets of its own, tells the operational recipients.

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
    // The node's refusal also leaves its reconcile dead on the jobs list, which says so under its own key.
    expect(received().filter((n) => n.key.startsWith('job:'))).toEqual([
      expect.objectContaining({
        kind: 'job.dead-lettered',
        key: expect.stringMatching(/^job:route\.reconcile:/),
      }),
    ])
    const [failed, ...more] = received().filter((n) => n.key === `domain:${domainId}`)
    expect(more).toEqual([])
    expect(failed).toMatchObject({
      event: 'operational.raised',
      kind: 'domain.failed',
      key: `domain:${domainId}`,
      subject: `Domain ${hostname} failed`,
      detail: expect.stringContaining('invalid upstream'),
      link: `https://panel.test/sites/${world.site.siteId}`,
    })
    expect(inbox.email).toHaveBeenCalledTimes(2)
    world.agent.refuseApply = null
    await attach()
    await drainJobs(world.sent, '', 40)
    expect(await getDomain(domainId, world.admin)).toMatchObject({ certState: 'issued' })
    // Green again: both clear, the reconcile's because a later one succeeded.
    const resolved = received().slice(2)
    expect(resolved).toHaveLength(2)
    expect(resolved).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ event: 'operational.resolved', key: `domain:${domainId}` }),
        expect.objectContaining({ event: 'operational.resolved', kind: 'job.dead-lettered' }),
      ]),
    )
  })
})

describe("a domain's own cert probe", () => {
  it('should tell the operational recipients while it has no targets, and its own once it has', async () => {
    const hostname = `cert-${crypto.randomUUID().slice(0, 8)}.customer-example.com`
    const domainId = await attachGreen(world, hostname)
    const [probe] = await certProbesOf(domainId, world.admin)
    if (!probe) throw new Error('no cert probe')
    const snapshot = await ok<MonitorSnapshot>('probes.get', { id: probe.id }, world.admin)
    const down = notification(snapshot, 'up', 'down')
    const messages = notifyMessages(snapshot, down)
    expect(messages).toEqual([
      { type: 'probe.notify', probeId: probe.id, target: 'operational', notification: down },
    ])
    const seen = inbox.hooks.length
    for (const message of messages) expect(await runJob(message)).toEqual({ acked: true, retryDelay: null })
    await drainJobs(world.sent, 'notification.')
    const up = notification(snapshot, 'down', 'up')
    expect(await runJob({ ...messages[0], notification: up } as ProbeNotifyMessage)).toMatchObject({
      acked: true,
    })
    await drainJobs(world.sent, 'notification.')
    expect(received().slice(seen)).toEqual([
      expect.objectContaining({
        event: 'operational.raised',
        kind: 'domain.certificate',
        key: `probe:${probe.id}`,
        subject: `The certificate of ${hostname} fails its check`,
        link: `https://panel.test/monitoring/probes/${probe.id}`,
      }),
      expect.objectContaining({ event: 'operational.resolved', key: `probe:${probe.id}` }),
    ])
    const own = { ...snapshot.notifyConfig, emails: ['owner@customer-example.com'] }
    expect(notifyMessages({ ...snapshot, notifyConfig: own }, down).map((m) => m.target)).toEqual([
      'email:owner@customer-example.com',
    ])
  })
})

describe("a domain's own cert probe, archived", () => {
  it('should send the all-clear of its open problem the minute after the domain is detached', async () => {
    const hostname = `gone-${crypto.randomUUID().slice(0, 8)}.customer-example.com`
    const domainId = await attachGreen(world, hostname)
    const [probe] = await certProbesOf(domainId, world.admin)
    if (!probe) throw new Error('no cert probe')
    const snapshot = await ok<MonitorSnapshot>('probes.get', { id: probe.id }, world.admin)
    const [message] = notifyMessages(snapshot, notification(snapshot, 'up', 'down'))
    if (!message) throw new Error('no operational message')
    await runJob(message)
    await ok('domains.detach', { id: domainId }, world.admin)
    await runCron('* * * * *')
    await drainJobs(world.sent, 'notification.')
    expect(
      received()
        .filter((n) => n.key === `probe:${probe.id}`)
        .map((n) => n.event),
    ).toEqual(['operational.raised', 'operational.resolved'])
  })
})

function notification(snapshot: MonitorSnapshot, previousState: string, state: string): ProbeNotification {
  const { id, name, type, targetKind, targetId, target } = snapshot
  return {
    event: 'probe.state_changed',
    probe: { id, name, type, targetKind, targetId, target },
    previousState,
    state,
    at: new Date().toISOString(),
    result: null,
    downSince: null,
  } as ProbeNotification
}
