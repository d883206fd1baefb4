import { beforeAll, describe, expect, it } from 'vitest'
import { EDGE_DELTA_PATHS } from '../../src/agent-contract/edge-changes'
import { AGENT_PATHS } from '../../src/agent-contract/v1'
import { agentSignatureHeaders } from '../../src/lib/agent-signature'
import { adminSession } from '../helpers/principals'
import { control, type EdgeNode, edgeNode, peers, timedStep } from './peers'

// Contract v2's delta calls against the real agent process and the real Caddy: a delta on the version served,
// and a resync (changes on a version the agent does not serve → 409 → the whole state in parts), which a
// restarted agent serves again from its snapshot and journal. The panel's side of these calls is built apart:
// these tests drive the agent directly with calls signed by the node's agent secret, as the panel signs them.

let node: EdgeNode

beforeAll(async () => {
  node = await edgeNode(await adminSession(), 'delta')
})

async function agentCall(
  path: string,
  body: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const raw = JSON.stringify(body)
  const signature = await agentSignatureHeaders(node.agent.agentSecret, {
    direction: 'panel-to-agent',
    method: 'POST',
    path,
    body: raw,
  })
  const response = await fetch(`${peers.agentUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...signature },
    body: raw,
  })
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}

/** The hostnames Caddy routes to the suite's site, as its running config lists them. */
async function routedToSite(): Promise<string[]> {
  const config = (await (await fetch(`${peers.caddyAdminUrl}/config/`)).json()) as {
    apps: {
      http: {
        servers: {
          edge: { routes: { match?: { host: string[] }[]; handle: { upstreams?: { dial: string }[] }[] }[] }
        }
      }
    }
  }
  return config.apps.http.servers.edge.routes
    .filter((route) => route.handle[0]?.upstreams?.[0]?.dial === `127.0.0.1:${peers.sitePort}`)
    .flatMap((route) => route.match?.[0]?.host ?? [])
}

const vhost = (name: string) => ({
  hostname: `${name}.delta-peers.test`,
  upstream: `127.0.0.1:${peers.sitePort}`,
  issuer: 'pebble' as const,
  issuable: true,
})
const none = { vhosts: [], removeHostnames: [], forwards: [], removeForwards: [] }

describe('the delta contract against the real agent and Caddy', () => {
  let version: number

  it('should apply a delta on the version it serves, changing only its entries in Caddy', async () => {
    const health = await agentCall(AGENT_PATHS.health, {})
    expect(health.body).toMatchObject({ agentVersion: '0.5.1' })
    version = Number(health.body.appliedVersion) + 1
    const whole = await agentCall(AGENT_PATHS.apply, {
      configVersion: version,
      vhosts: [vhost('a'), vhost('b')],
      forwards: [],
    })
    expect(whole.status, JSON.stringify(whole.body)).toBe(200)
    const delta = await timedStep('delta: one added, one removed', () =>
      agentCall(EDGE_DELTA_PATHS.changes, {
        ...none,
        baseVersion: version,
        configVersion: version + 1,
        vhosts: [vhost('c')],
        removeHostnames: [vhost('a').hostname],
      }),
    )
    version++
    expect(delta.status, JSON.stringify(delta.body)).toBe(200)
    expect(delta.body).toMatchObject({ appliedVersion: version, failed: [] })
    expect(await routedToSite()).toEqual([vhost('b').hostname, vhost('c').hostname])
  })

  it('should resync: 409 for changes on another version, then the whole state in parts, kept across a restart', async () => {
    const missed = await agentCall(EDGE_DELTA_PATHS.changes, {
      ...none,
      baseVersion: version + 5,
      configVersion: version + 6,
      vhosts: [vhost('d')],
    })
    expect(missed.status).toBe(409)
    expect(missed.body).toMatchObject({ code: 'version_mismatch', appliedVersion: version })
    const target = version + 6
    const parts = [
      { configVersion: target, part: 1, parts: 2, vhosts: [vhost('e'), vhost('d')], forwards: [] },
      { configVersion: target, part: 0, parts: 2, vhosts: [vhost('c')], forwards: [] },
    ]
    const answers = []
    for (const part of parts) answers.push(await agentCall(EDGE_DELTA_PATHS.parts, part))
    expect(answers.map((answer) => answer.body)).toEqual([
      { configVersion: target, partsReceived: 1, parts: 2, applied: null },
      {
        configVersion: target,
        partsReceived: 2,
        parts: 2,
        applied: expect.objectContaining({ appliedVersion: target, failed: [] }),
      },
    ])
    const resynced = [vhost('c').hostname, vhost('d').hostname, vhost('e').hostname]
    expect(await routedToSite()).toEqual(resynced)
    await timedStep('resync: kill the agent, restart Caddy empty, start the agent again', async () => {
      await control('POST', '/agent/kill')
      await control('POST', '/caddy/stop')
      await control('POST', '/caddy/start')
      await control('POST', '/agent/restart')
    })
    expect(await routedToSite()).toEqual(resynced)
    expect((await agentCall(AGENT_PATHS.health, {})).body).toMatchObject({ appliedVersion: target })
  })
})
