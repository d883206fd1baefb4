import { describe, expect, it } from 'vitest'
import {
  agentHealth,
  applyEdgeState,
  NodeAgentError,
  primeCertificate,
  renewCertificate,
  smokeTest,
} from '../src/outside/node-agent'
import { FakeNodeAgent } from './fakes/node-agent'
import { fakeOrigin } from './helpers/outbound'

const SECRET = 'agent-secret-for-contract-v1'
const STATE = {
  configVersion: 3,
  vhosts: [{ hostname: 'shop.example.com', upstream: '10.0.0.5:3000', issuer: 'pebble' as const }],
  forwards: [{ listenPort: 2222, proto: 'tcp' as const, upstream: '10.0.0.5:22' }],
}

function fakeAgent(): { agent: FakeNodeAgent; node: { agentUrl: string; agentSecret: string } } {
  const agentUrl = `https://agent-${crypto.randomUUID().slice(0, 8)}.example.com`
  return { agent: new FakeNodeAgent(agentUrl, SECRET).install(), node: { agentUrl, agentSecret: SECRET } }
}

async function refusal(promise: Promise<unknown>): Promise<NodeAgentError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  )
  if (!(error instanceof NodeAgentError)) throw new Error(`expected a NodeAgentError, got ${String(error)}`)
  return error
}

describe('the node agent client (contract v2)', () => {
  it('should push signed edge state, then prime, renew, smoke and report health', async () => {
    const { agent, node } = fakeAgent()
    expect(await applyEdgeState(node, STATE)).toEqual({
      appliedVersion: 3,
      firewall: { managed: false, rules: ['-A INPUT -p tcp --dport 2222 -j ACCEPT'] },
      failed: [],
    })
    expect(agent.edge).toEqual(STATE)
    const primed = await primeCertificate(node, 'shop.example.com')
    expect(primed).toMatchObject({ hostname: 'shop.example.com', issuer: 'CN=Pebble Intermediate CA' })
    // The same call again carries a fresh nonce: the fake refuses a nonce it saw, as a real agent does.
    expect((await primeCertificate(node, 'shop.example.com')).serial).toBe(primed.serial)
    expect((await renewCertificate(node, 'shop.example.com')).serial).not.toBe(primed.serial)
    expect(await smokeTest(node, 'shop.example.com')).toMatchObject({ ok: true, status: 200 })
    expect(await smokeTest(node, 'other.example.com')).toMatchObject({ ok: false, status: null })
    expect(await agentHealth(node)).toEqual({
      agentVersion: 'fake-1.0.0',
      contract: 'v2',
      appliedVersion: 3,
      proxy: { name: 'caddy', version: '2.6.2', reachable: true },
    })
    expect(agent.calls.map((call) => call.path)).toEqual([
      '/v2/edge/apply',
      '/v2/certificates/prime',
      '/v2/certificates/prime',
      '/v2/certificates/renew',
      '/v2/smoke',
      '/v2/smoke',
      '/v2/health',
    ])
  })

  it('should read per-entry failures, quoted like any of its words, and none from an agent without them', async () => {
    const { agent, node } = fakeAgent()
    agent.takenPorts.add(2222)
    expect((await applyEdgeState(node, STATE)).failed).toEqual([
      {
        kind: 'forward',
        listenPort: 2222,
        proto: 'tcp',
        error: 'cannot listen on tcp/2222: listen EADDRINUSE: address already in use 0.0.0.0:2222',
      },
    ])
    agent.perEntry = false
    expect((await applyEdgeState(node, { ...STATE, configVersion: 4 })).failed).toEqual([])
    fakeOrigin(node.agentUrl, () =>
      Response.json({
        appliedVersion: 5,
        firewall: { managed: false, rules: [] },
        failed: [{ kind: 'vhost', hostname: 'shop.example.com', error: `upstream refused ${SECRET}` }],
      }),
    )
    expect((await applyEdgeState(node, { ...STATE, configVersion: 5 })).failed).toEqual([
      {
        kind: 'vhost',
        hostname: 'shop.example.com',
        error: 'the node agent did not serve it (its reason is withheld)',
      },
    ])
  })

  it("should quote a refusal's problem detail, but never words holding the agent secret", async () => {
    const { agent, node } = fakeAgent()
    agent.refuseApply = 'caddy: unknown directive "reverse_prox"'
    const refused = await refusal(applyEdgeState(node, STATE))
    expect(refused.status).toBe(422)
    expect(refused.message).toBe('the node agent answered 422: caddy: unknown directive "reverse_prox"')
    agent.refuseApply = `bad secret ${SECRET}`
    expect((await refusal(applyEdgeState(node, STATE))).message).toBe('the node agent answered 422')
  })

  it('should fail with the status when the agent holds another secret, and with none when it is down', async () => {
    const { agent, node } = fakeAgent()
    const wrong = await refusal(agentHealth({ ...node, agentSecret: 'another-secret-0123456789' }))
    expect(wrong.status).toBe(401)
    agent.down = true
    const down = await refusal(agentHealth(node))
    expect(down.status).toBeNull()
    expect(down.message).toContain('did not answer')
  })
})
