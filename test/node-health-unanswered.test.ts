import { env } from 'cloudflare:workers'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { type Caller, ok } from './helpers/http'
import { runJob } from './helpers/jobs'
import { adminSession } from './helpers/principals'

// The panel's health check against real loopback servers (test/probes/servers/), with no fetch fake installed:
// each way an agent can fail to answer reads differently in the node's health error.

const servers = inject('probeServers')
const workerEnv = env as unknown as { ENVIRONMENT: string }

let admin: Caller
let nodes = 0

beforeAll(async () => {
  admin = await adminSession()
  // Loopback agent URLs are allowed only in development, when saved and when called.
  workerEnv.ENVIRONMENT = 'development'
})

afterAll(() => {
  workerEnv.ENVIRONMENT = 'production'
})

/** A node whose agent is at `agentUrl`, checked once: its health's state and error. */
async function checkedAt(agentUrl: string): Promise<{ state: string; error: string | null }> {
  const { id } = await ok<{ id: string }>(
    'nodes.create',
    { name: `unanswered-${++nodes}`, agentUrl, agentSecret: 'agent-secret-0123456789' },
    admin,
  )
  const outcome = await runJob({ type: 'node.health-check', nodeId: id, scheduledAt: Date.now() })
  expect(outcome).toEqual({ acked: true, retryDelay: null })
  return (await ok<{ health: { state: string; error: string | null } }>('nodes.get', { id }, admin)).health
}

describe('node health when the agent does not answer', () => {
  it('should say the panel does not trust the certificate an https agent presented', async () => {
    const agentUrl = `https://127.0.0.1:${servers.tls.valid.port}`
    const health = await checkedAt(agentUrl)
    expect(health.state).toBe('unreachable')
    expect(health.error).toBe(
      `the panel does not trust the certificate the agent at ${agentUrl} presented (TLS handshake failed): the certificate may be self-signed, expired, for another name or from a CA the panel's runtime does not know (for a local test CA, start the panel with NODE_EXTRA_CA_CERTS=<its root certificate>), or the port may not speak TLS`,
    )
  })

  it('should class a port that does not speak TLS with the failed handshakes', async () => {
    const health = await checkedAt(`https://127.0.0.1:${servers.banner}`)
    expect(health.error).toMatch(
      /^the panel does not trust the certificate the agent at .* \(TLS handshake failed\)/,
    )
  })

  it('should say a refused connection is refused', async () => {
    const agentUrl = `https://127.0.0.1:${servers.refused}`
    const health = await checkedAt(agentUrl)
    expect(health).toMatchObject({
      state: 'unreachable',
      error: `the node agent at ${agentUrl} did not answer: 127.0.0.1:${servers.refused} refused the connection (nothing listens there)`,
    })
  })

  it('should say an agent that never accepts the connection timed out', { timeout: 30_000 }, async () => {
    const agentUrl = `https://127.0.0.1:${servers.blackhole}`
    const health = await checkedAt(agentUrl)
    expect(health).toMatchObject({
      state: 'unreachable',
      error: `the node agent at ${agentUrl} did not answer: timed out after 10 s`,
    })
  })

  it('should say a name that does not resolve cannot be connected to', async () => {
    const agentUrl = 'https://agent.no-such-node.invalid'
    const health = await checkedAt(agentUrl)
    expect(health.error).toBe(
      `the node agent at ${agentUrl} did not answer: no connection to agent.no-such-node.invalid:443 could be made: the name does not resolve from the panel, or nothing there is reachable`,
    )
  })
})
