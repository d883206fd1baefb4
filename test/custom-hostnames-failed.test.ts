import { beforeEach, describe, expect, it } from 'vitest'
import type { SiteFixture } from './custom-hostnames/fixture'
import { hostedZones } from './custom-hostnames/hosted-zone'
import type { SentJob } from './dns-servers/run-job'
import { FakeNodeAgent } from './fakes/node-agent'
import { type Caller, ok } from './helpers/http'
import { drainJobs } from './helpers/jobs'
import { QueueClock } from './helpers/queue-clock'

// `failed` is final: a write that keeps failing shows pending with its last error while the attempts of the
// first minutes run, then failed with the error, and nothing tries again until the app registers again or an
// operator retries the dead job.

interface Status {
  state: string
  failureRemedy?: string
  lastError?: string
}
interface Job {
  id: string
  kind: string
  targetId: string
  state: string
}

const FIVE_MINUTES = 5 * 60
const hosted = hostedZones('final')
const { boxes } = hosted
let admin: Caller
let sent: SentJob[]
let site: SiteFixture
let zone: string

beforeEach(async () => {
  ;({ admin, sent, site, zone } = await hosted.fresh())
  const node = await ok<{ agentUrl: string }>('nodes.get', { id: site.nodeId }, admin)
  new FakeNodeAgent(node.agentUrl, 'agent-secret-0123456789').install()
  // The zone's own copies run now, so that only the hostname's work reaches the boxes afterwards.
  await drainJobs(sent, 'dns.')
})

const shown = (hostname: string) =>
  ok<Status & { id?: string }>('customHostnames.status', { siteId: site.siteId, hostname }, site.app)
const everywhere = (name: string, type: string) => boxes.map((box) => box.lookup(name, type))
const setDown = (down: boolean) => {
  for (const box of boxes) box.down = down
}

/** Registers with both boxes down and runs the Queue until the row shows failed, checking it on the way. */
async function failedRound(hostname: string, clock: QueueClock): Promise<number | null> {
  setDown(true)
  await ok('customHostnames.register', { siteId: site.siteId, hostname }, site.app)
  const seen: Status[] = []
  const seconds = await clock.runUntil(async () => {
    const status = await shown(hostname)
    seen.push(status)
    return status.state === 'failed'
  })
  const during = seen.slice(0, -1)
  expect(during[0]).toEqual(expect.not.objectContaining({ lastError: expect.anything() }))
  for (const status of during) expect(status.state).toBe('pending')
  // The contract keeps failureRemedy for failed and removal-manual rows only.
  for (const status of during) expect(status).not.toHaveProperty('failureRemedy')
  // Each failed try with tries left shows its error on the pending row, as lastError.
  const withError = during.filter((status) => status.lastError)
  expect(withError.length).toBeGreaterThan(0)
  for (const status of withError) expect(status.lastError).toMatch(/did not answer.*tries again until/)
  return seconds
}

describe('a write whose zone does not answer', () => {
  it('should show pending with the last error, then failed within 5 minutes, and try nothing more even when the boxes come back', async () => {
    const hostname = `down.${zone}`
    const clock = new QueueClock(sent)
    const seconds = await failedRound(hostname, clock)
    expect(seconds).not.toBeNull()
    expect(seconds).toBeLessThan(FIVE_MINUTES)
    const failed = await shown(hostname)
    expect(failed.failureRemedy).toMatch(/did not answer/)
    expect(failed.failureRemedy).not.toMatch(/tries again|keeps trying/)
    expect(failed).not.toHaveProperty('lastError')
    setDown(false)
    const before = boxes.map((box) => box.served)
    expect(await clock.runUntil(async () => false)).toBeNull()
    expect(boxes.map((box) => box.served)).toEqual(before)
    expect((await shown(hostname)).state).toBe('failed')
    expect(everywhere(hostname, 'CNAME')).toEqual([[], []])
  })

  it('should start a fresh round when the app registers again, and go active', async () => {
    const hostname = `again.${zone}`
    const clock = new QueueClock(sent)
    await failedRound(hostname, clock)
    setDown(false)
    expect(await ok('customHostnames.register', { siteId: site.siteId, hostname }, site.app)).toMatchObject({
      state: 'pending',
    })
    await clock.runUntil(async () => (await shown(hostname)).state === 'active')
    expect(everywhere(hostname, 'CNAME').map((values) => values.length)).toEqual([1, 1])
  })

  it('should list the write as a dead job, and start a fresh round when an operator retries it', async () => {
    const hostname = `retried.${zone}`
    const clock = new QueueClock(sent)
    await failedRound(hostname, clock)
    const { id: rowId } = (
      await ok<{ hostnames: { id: string; hostname: string }[] }>(
        'customHostnames.list',
        { siteId: site.siteId },
        admin,
      )
    ).hostnames.find((row) => row.hostname === hostname) ?? { id: '' }
    const { jobs } = await ok<{ jobs: Job[] }>(
      'jobs.list',
      { state: 'dead', kind: 'custom-hostname.write' },
      admin,
    )
    const dead = jobs.find((job) => job.targetId === rowId)
    if (!dead) throw new Error('the failed write is not on the dead jobs list')
    setDown(false)
    await ok('jobs.retry', { id: dead.id }, admin)
    expect((await shown(hostname)).state).toBe('pending')
    await clock.runUntil(async () => (await shown(hostname)).state === 'active')
    expect(everywhere(hostname, 'CNAME').map((values) => values.length)).toEqual([1, 1])
  })
})
