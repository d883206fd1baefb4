import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { JobMessage } from '../../src/jobs/messages'
import { MAX_RECONCILE_ATTEMPTS } from '../../src/routes/reconcile-job'
import { zoneName } from '../custom-hostnames/fixture'
import { captureJobs, type SentJob } from '../dns-servers/run-job'
import { type Caller, call, ok } from '../helpers/http'
import { drainJobs, runJob } from '../helpers/jobs'
import { adminSession, tokenFor } from '../helpers/principals'
import {
  control,
  type EdgeNode,
  edgeNode,
  enrollPeerBoxes,
  httpsThroughCaddy,
  timedStep,
  withAgentRelay,
} from './peers'

// Step 5 of the end-to-end suite: the spec's programmatic onboarding sequence, through the REST paths it names,
// against PowerDNS, the reference agent, Caddy and pebble.

interface Domain {
  id: string
  hostname: string
  dnsState: string
  certState: string
  certExpiresAt: string | null
  failureRemedy: string | null
  verification: { step: string; state: string; detail: string }[]
  nextStep: { title: string } | null
}

/** Like drainJobs, but each job runs as the delivery `attempts` says (a job's last delivery makes its failure final). */
async function drainJobsWith(sent: SentJob[], attempts: (job: JobMessage) => number): Promise<void> {
  for (let round = 0; round < 20 && sent.length > 0; round++) {
    for (const job of sent.splice(0)) {
      if ((await runJob(job.body, attempts(job.body))).retryDelay !== null) sent.push(job)
    }
  }
}

describe('the onboarding sequence, end to end', () => {
  let admin: Caller
  let app: Caller
  let node: EdgeNode
  let zone: { id: string; name: string }
  let sent: SentJob[] = []

  beforeAll(async () => {
    admin = await adminSession()
    app = await tokenFor(admin, ['domains:view', 'domains:manage', 'settings:view'])
    await enrollPeerBoxes(admin, 'onboard')
    zone = await ok('dnsServers.zones.create', { name: zoneName('onboard') }, admin)
    node = await edgeNode(admin, 'onboard')
  })

  beforeEach(() => {
    sent = captureJobs()
  })

  async function get(id: string): Promise<Domain> {
    const answer = await call<Domain>('domains.get', { id }, app, 'rest')
    expect(answer.status, answer.text).toBe(200)
    return answer.body
  }

  /** Runs the queued jobs (relaying the agent's certificate report) and polls domains.get once they are done. */
  async function settle(id: string, step: string): Promise<Domain> {
    await timedStep(step, () => withAgentRelay(() => drainJobs(sent, '')))
    return get(id)
  }

  it('should take a self-hosted domain to green, serve it over HTTPS, renew it and detach it', async () => {
    const hostname = `www.${zone.name}`
    const upsert = await call(
      'dnsServers.zones.upsertRecord',
      { id: zone.id, name: hostname, type: 'A', ttl: 60, values: ['127.0.0.1'] },
      admin,
      'rest',
    )
    expect(upsert.status, upsert.text).toBe(200)
    const attached = await call<{ domainId: string; hostname: string }>(
      'domains.attach',
      { siteId: node.siteId, hostname, driver: 'selfhosted' },
      app,
      'rest',
    )
    expect(attached.status, attached.text).toBe(200)
    expect(attached.body.hostname).toBe(hostname)
    const green = await settle(attached.body.domainId, 'onboarding: attach to green')
    expect(green, JSON.stringify(green.verification)).toMatchObject({
      dnsState: 'verified',
      certState: 'issued',
      failureRemedy: null,
    })
    expect(green.nextStep).not.toBeNull()
    const served = await httpsThroughCaddy(hostname)
    expect(served).toMatchObject({ ok: true, status: 200, body: `site ${hostname}` })
    if (!served.ok) return
    expect(green.certExpiresAt).toBe(served.notAfter)

    const renew = await call('domains.renew', { id: green.id }, app, 'rest')
    expect(renew.status, renew.text).toBe(200)
    const renewed = await settle(green.id, 'onboarding: renew')
    expect(renewed, JSON.stringify(renewed.verification)).toMatchObject({ certState: 'issued' })
    const again = await httpsThroughCaddy(hostname)
    expect(again).toMatchObject({ ok: true, status: 200 })
    if (!again.ok) return
    expect(again.serial).not.toBe(served.serial)

    const detach = await call('domains.detach', { id: green.id }, app, 'rest')
    expect(detach.status, detach.text).toBe(200)
    await timedStep('onboarding: detach', () => drainJobs(sent, ''))
    expect((await call('domains.get', { id: green.id }, app, 'rest')).status).toBe(404)
    // Caddy no longer has the name in its ask gate: the handshake is refused.
    expect(await httpsThroughCaddy(hostname)).toMatchObject({
      ok: false,
      error: expect.stringContaining('alert internal error'),
    })
  })

  it('should fail the attach at route setup with a remedy naming the actual error when Caddy is down', async () => {
    const hostname = `down.${zone.name}`
    await ok(
      'dnsServers.zones.upsertRecord',
      { id: zone.id, name: hostname, type: 'A', ttl: 60, values: ['127.0.0.1'] },
      admin,
    )
    await control('POST', '/caddy/stop')
    try {
      const attached = await ok<{ domainId: string }>(
        'domains.attach',
        { siteId: node.siteId, hostname, driver: 'selfhosted' },
        app,
      )
      // Each reconcile runs as its last delivery, so the agent's 502 is final at once.
      await timedStep('broken step: attach with Caddy down', () =>
        drainJobsWith(sent, (job) => (job.type === 'route.reconcile' ? MAX_RECONCILE_ATTEMPTS : 1)),
      )
      const failed = await get(attached.domainId)
      expect(failed, JSON.stringify(failed.verification)).toMatchObject({
        dnsState: 'verified',
        certState: 'failed',
      })
      expect(failed.verification.at(-1)).toMatchObject({ step: 'route-setup', state: 'failed' })
      expect(failed.failureRemedy).toContain('route setup')
      expect(failed.failureRemedy).toContain("the node agent answered 502: Caddy's admin API did not answer")
    } finally {
      await control('POST', '/caddy/start')
    }
  })
})
