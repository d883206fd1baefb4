import { eq } from 'drizzle-orm'
import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { RunCheckRequest } from '../../src/agent-contract/checks'
import { db } from '../../src/db/client'
import { probes } from '../../src/db/schema/probes'
import { FakeNodeAgent } from '../fakes/node-agent'
import { FIXTURE_AGENT_SECRET, reportCheckResult } from '../helpers/agent-callback'
import { type Caller, ok } from '../helpers/http'
import { runJob } from '../helpers/jobs'
import { fakeOrigin } from '../helpers/outbound'
import { adminSession } from '../helpers/principals'
import { probeRecord, STATUS_ORIGIN, workerEnv } from './catalogue-fixture'

// What the panel sends a node to run: the node's checkAllowCidrs beside the check when it has any (an older
// agent's strict schema refuses the key, so never an empty one), never POST; and a check that breaks the node
// rule (stored before it, or whose node's list shrank since) is not sent: the location fails naming the rule.

let admin: Caller
let nodeCount = 0

beforeAll(async () => {
  admin = await adminSession()
})

beforeEach(() => {
  fakeOrigin(STATUS_ORIGIN, () => new Response('ok'))
})

interface TestNode {
  id: string
  name: string
  agent: FakeNodeAgent
}

async function node(checkAllowCidrs?: string[]): Promise<TestNode> {
  const n = ++nodeCount
  const agentUrl = `https://agent-${n}.dispatch-example.com`
  const row = await ok<{ id: string; name: string }>(
    'nodes.create',
    {
      name: `dispatch-node-${n}-${crypto.randomUUID().slice(0, 8)}`,
      agentUrl,
      agentSecret: FIXTURE_AGENT_SECRET,
      ...(checkAllowCidrs ? { checkAllowCidrs } : {}),
    },
    admin,
  )
  return { ...row, agent: new FakeNodeAgent(agentUrl, FIXTURE_AGENT_SECRET).install() }
}

type Detail = { id: string; state: string; lastResult: { outcome: string; detail: string } | null }

const probe = (fields: Record<string, unknown>) =>
  ok<Detail>(
    'probes.create',
    {
      name: `dispatched ${crypto.randomUUID().slice(0, 8)}`,
      targetKind: 'external',
      config: { failureThreshold: 1 },
      ...fields,
    },
    admin,
  )

async function check(probeId: string): Promise<void> {
  expect((await runJob({ type: 'probe.check', probeId, scheduledAt: Date.now() })).acked).toBe(true)
}

const runs = (n: TestNode): RunCheckRequest[] => n.agent.checkRuns()

describe('the run request a node receives', () => {
  it("should carry the node's checkAllowCidrs when it has some, and no allowCidrs key otherwise", async () => {
    const [open, shut] = [await node(['10.0.0.0/8', 'fd00::/8']), await node()]
    const inside = await probe({ type: 'tcp', target: '10.0.0.7:5432', location: open.id })
    await check(inside.id)
    expect(runs(open)).toHaveLength(1)
    expect(runs(open)[0]).toMatchObject({ allowCidrs: ['10.0.0.0/8', 'fd00::/8'], location: open.id })
    const http = await probe({ type: 'http', target: `${STATUS_ORIGIN}/`, location: [open.id, shut.id] })
    await check(http.id)
    expect(runs(shut)).toHaveLength(1)
    expect(runs(shut)[0]).not.toHaveProperty('allowCidrs')
    expect(runs(shut)[0]?.check).toMatchObject({ type: 'http', method: 'GET' })
    expect(runs(open)[1]).toMatchObject({ allowCidrs: ['10.0.0.0/8', 'fd00::/8'], check: { method: 'GET' } })
  })
})

describe('a stored check that breaks the node rule', () => {
  it('should not send a POST or a loopback target stored before the rule: the location fails naming it', async () => {
    const a = await node()
    const post = await probe({ type: 'http', target: `${STATUS_ORIGIN}/`, location: a.id })
    const stored = await probeRecord(post.id)
    if (stored?.config === undefined || !('method' in stored.config)) throw new Error('no http probe stored')
    // As a probe created before the rule was stored it.
    await db(workerEnv.DB)
      .update(probes)
      .set({ config: { ...stored.config, method: 'POST' } })
      .where(eq(probes.id, post.id))
    await check(post.id)
    expect(runs(a)).toEqual([])
    const read = await ok<Detail>('probes.get', { id: post.id }, admin)
    expect(read.state).toBe('down')
    expect(read.lastResult?.detail).toBe(
      `node ${a.name}: not sent: a check from a node sends GET or HEAD only, not POST`,
    )

    const stop = await probe({ type: 'tcp', target: 'caddy-admin.dispatch-example.com:2019', location: a.id })
    await db(workerEnv.DB).update(probes).set({ target: '127.0.0.1:2019' }).where(eq(probes.id, stop.id))
    await check(stop.id)
    expect(runs(a)).toEqual([])
    const refused = await ok<Detail>('probes.get', { id: stop.id }, admin)
    expect(refused.state).toBe('down')
    expect(refused.lastResult?.detail).toMatch(
      new RegExp(`^node ${a.name}: not sent: .*127\\.0\\.0\\.1.*loopback`),
    )
  })

  it("should stop sending a private target once the node's checkAllowCidrs no longer lists it", async () => {
    const a = await node(['10.0.0.0/8'])
    const inside = await probe({ type: 'tcp', target: '10.0.0.7:5432', location: a.id })
    await check(inside.id)
    const [run] = runs(a)
    if (!run) throw new Error('the node was asked to run nothing')
    // The first round is judged before the next one can be.
    const { probeId, scheduledAt, location } = run
    const verdict = { probeId, scheduledAt, location, outcome: 'up', latencyMs: 12, detail: 'connected' }
    expect((await reportCheckResult(a.id, verdict)).status).toBe(200)
    await ok('nodes.update', { id: a.id, checkAllowCidrs: ['192.168.0.0/16'] }, admin)
    await check(inside.id)
    expect(runs(a)).toHaveLength(1)
    const read = await ok<Detail>('probes.get', { id: inside.id }, admin)
    expect(read.lastResult?.detail).toMatch(new RegExp(`^node ${a.name}: not sent: .*checkAllowCidrs`))
  })
})
