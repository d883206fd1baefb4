import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Env } from '../../src/env'
import worker from '../../src/index'
import { inCidr, parseAddress } from '../../src/lib/cidr'
import { PRIVATE_RANGES } from '../../src/probes/locations/node-rule'
import { type Caller, ORIGIN, ok } from '../helpers/http'
import { runJob } from '../helpers/jobs'
import { adminSession } from '../helpers/principals'
import { control, type EdgeNode, edgeNode, peers, timedStep, withAgentRelay } from './peers'

// Checks from your own node, with the real agent: the panel asks the agent to run a probe's check, the agent runs
// it on the node and posts the signed verdict back through the relay. The node reaches what the edge may not —
// its own network, a TLS 1.3-only server's certificate — but never its own loopback (Caddy's admin API, the
// agent), and a stopped agent is a failed location until it is back.

interface Probe {
  id: string
  state: string
  location: string | string[] | null
  lastResult: { outcome: string; detail: string } | null
}

const workerEnv = env as unknown as Env

/**
 * probes.create as production's panel answers it (the suite's panel runs as development so it can reach the
 * local peers): its outbound rule refuses loopback targets for the edge.
 */
async function createInProduction(input: Record<string, unknown>, caller: Caller) {
  const request = new Request(`${ORIGIN}/api/rpc/probes.create`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(caller.cookie ? { cookie: caller.cookie, origin: ORIGIN } : {}),
      ...(caller.token ? { authorization: `Bearer ${caller.token}` } : {}),
    },
    body: JSON.stringify(input),
  })
  const ctx = createExecutionContext()
  const response = await worker.fetch(request, { ...workerEnv, ENVIRONMENT: 'production' }, ctx)
  await waitOnExecutionContext(ctx)
  return { status: response.status, body: (await response.json()) as Probe & { issues?: { path: string }[] } }
}

describe('checks from your own node, end to end', () => {
  let admin: Caller
  let node: EdgeNode
  let nodeName: string
  const created: string[] = []

  beforeAll(async () => {
    admin = await adminSession()
    node = await edgeNode(admin, 'nodechecks')
    nodeName = (await ok<{ name: string }>('nodes.get', { id: node.nodeId }, admin)).name
    // Where this machine's address is private, the node's operator opens it, as one would for a node's network.
    const address = parseAddress(peers.checkHost)
    if (address && PRIVATE_RANGES.some((range) => inCidr(address, range)))
      await ok('nodes.update', { id: node.nodeId, checkAllowCidrs: [`${peers.checkHost}/32`] }, admin)
  })

  afterAll(async () => {
    for (const id of created) await ok('probes.archive', { id }, admin)
  })

  const create = async (input: Record<string, unknown>) => {
    const probe = await ok<Probe>('probes.create', { targetKind: 'external', ...input }, admin)
    created.push(probe.id)
    return probe
  }

  const get = (id: string) => ok<Probe>('probes.get', { id }, admin)

  /** Runs each probe's check through the queue handler and waits until they show the expected states. */
  async function checkUntil(expected: Record<string, string>, waitMs = 20_000): Promise<void> {
    for (const probeId of Object.keys(expected))
      expect((await runJob({ type: 'probe.check', probeId, scheduledAt: Date.now() })).acked).toBe(true)
    const until = Date.now() + waitMs
    for (;;) {
      const probes = await Promise.all(Object.keys(expected).map(get))
      if (probes.every((probe) => probe.state === expected[probe.id])) return
      if (Date.now() > until) {
        const log = await control<{ log: string }>('GET', '/agent/log')
        const seen = probes.map((p) => `${p.id} ${p.state}: ${JSON.stringify(p.lastResult)}`)
        throw new Error(
          `the probes did not reach ${JSON.stringify(expected)}:\n${seen.join('\n')}\n${log.log}`,
        )
      }
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
  }

  it('should refuse a node’s loopback at create, and on the node a name that resolves to it', async () => {
    // The review's reproduction: Caddy's admin API on the node's loopback. The panel refuses the address itself,
    // for the node as for the edge.
    const port = new URL(peers.caddyAdminUrl).port
    for (const [type, target] of [
      ['http', `http://127.0.0.1:${port}/stop`],
      ['tcp', `127.0.0.1:${peers.echoPort}`],
    ]) {
      for (const location of ['edge', node.nodeId]) {
        const answer = await createInProduction(
          { name: `${type} of loopback`, type, targetKind: 'external', target, location },
          admin,
        )
        expect(answer.status, JSON.stringify(answer.body)).toBe(400)
        expect(answer.body.issues?.map((issue) => issue.path)).toEqual(['target'])
      }
    }
    // A name the panel cannot judge: the agent looks it up when the check runs and refuses its loopback address.
    const name = peers.loopbackName
    const located = async (type: string, target: string) => {
      const answer = await createInProduction(
        {
          name: `${type} from the node`,
          type,
          targetKind: 'external',
          target,
          location: node.nodeId,
          config: { failureThreshold: 1 },
        },
        admin,
      )
      expect(answer.status, JSON.stringify(answer.body)).toBe(200)
      created.push(answer.body.id)
      return answer.body
    }
    const http = await located('http', `http://${name}:${port}/stop`)
    const tcp = await located('tcp', `${name}:${peers.echoPort}`)
    await timedStep('node checks: loopback refused on the node', () =>
      withAgentRelay(() => checkUntil({ [http.id]: 'down', [tcp.id]: 'down' })),
    )
    const refused = new RegExp(
      `^node ${nodeName}: refused: ${name.replaceAll('.', '\\.')} resolves to 127\\.[0-9.]+, a loopback address; a node's checks never reach the node itself$`,
    )
    expect((await get(http.id)).lastResult).toMatchObject({
      outcome: 'down',
      detail: expect.stringMatching(refused),
    })
    expect((await get(tcp.id)).lastResult).toMatchObject({
      outcome: 'down',
      detail: expect.stringMatching(refused),
    })
    // Caddy is still up: its admin API answers.
    expect((await fetch(`${peers.caddyAdminUrl}/config/`)).status).toBe(200)
  })

  it('should check an http and a tcp port of the node’s network from the node', async () => {
    const http = await create({
      name: 'http from the node',
      type: 'http',
      target: `http://${peers.checkHost}:${peers.sitePort}/`,
      location: node.nodeId,
      config: { keyword: `site ${peers.checkHost}:${peers.sitePort}` },
    })
    const tcp = await create({
      name: 'tcp from the node',
      type: 'tcp',
      target: `${peers.checkHost}:${peers.echoPort}`,
      location: node.nodeId,
    })
    await timedStep('node checks: http and tcp from the node', () =>
      withAgentRelay(() => checkUntil({ [http.id]: 'up', [tcp.id]: 'up' })),
    )
    expect((await get(http.id)).lastResult).toMatchObject({
      outcome: 'up',
      detail: `node ${nodeName}: HTTP 200`,
    })
    expect((await get(tcp.id)).lastResult).toMatchObject({
      outcome: 'up',
      detail: `node ${nodeName}: connected`,
    })
  })

  it('should read a TLS 1.3-only server’s certificate from the node, while the edge cannot: degraded from both', async () => {
    const target = `${peers.checkHost}:${peers.tls13Only.port}`
    const fromNode = await create({
      name: 'tls 1.3 from the node',
      type: 'cert',
      target,
      location: node.nodeId,
    })
    const fromBoth = await create({
      name: 'tls 1.3 from the edge and the node',
      type: 'cert',
      target,
      location: ['edge', node.nodeId],
    })
    await timedStep('node checks: a TLS 1.3-only certificate', () =>
      withAgentRelay(() => checkUntil({ [fromNode.id]: 'up', [fromBoth.id]: 'degraded' })),
    )
    const valid = `certificate valid until ${peers.tls13Only.notAfter.slice(0, 10)}`
    expect((await get(fromNode.id)).lastResult?.detail).toMatch(new RegExp(`^node ${nodeName}: ${valid} \\(`))
    const both = (await get(fromBoth.id)).lastResult?.detail ?? ''
    expect(both).toMatch(
      /^1 of 2 locations failed — edge: could not read the certificate's expiry: the server refused TLS 1\.2/,
    )
    expect(both).toContain(`; node ${nodeName}: ${valid}`)
  })

  it('should count a stopped agent as a failed location, and go up again once it is restarted', async () => {
    const tcp = await create({
      name: 'echo while the agent restarts',
      type: 'tcp',
      target: `${peers.checkHost}:${peers.echoPort}`,
      location: node.nodeId,
      config: { failureThreshold: 1 },
    })
    await withAgentRelay(() => checkUntil({ [tcp.id]: 'up' }))
    await control('POST', '/agent/kill')
    try {
      await checkUntil({ [tcp.id]: 'down' })
      expect((await get(tcp.id)).lastResult?.detail).toMatch(
        new RegExp(
          `^node ${nodeName}: did not take the check: the node agent at ${peers.agentUrl} did not answer`,
        ),
      )
    } finally {
      await control('POST', '/agent/restart')
    }
    await timedStep('node checks: after the agent restarted', () =>
      withAgentRelay(() => checkUntil({ [tcp.id]: 'up' })),
    )
  })
})
