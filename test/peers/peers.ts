import { inject, vi } from 'vitest'
import { type Caller, ok, send } from '../helpers/http'
import type { AgentIdentity } from './agent-process'
import type { CaddyAnswer, CaddyRequest, HttpsResult } from './control'
import type { RelayedRequest } from './relay'

// The tests' side of the peers: calls to the control server, and the pump that hands the agent's calls to the
// panel's own fetch handler (the panel in workerd listens on no port).

export const peers = inject('peers')

/** Runs one step of a test and prints how long it took (the suite's time budget is read from these lines). */
export async function timedStep<T>(step: string, run: () => Promise<T>): Promise<T> {
  const start = performance.now()
  try {
    return await run()
  } finally {
    console.log(`peers: ${step} took ${((performance.now() - start) / 1000).toFixed(1)} s`)
  }
}

/** Calls the control server; a failing call throws with its answer. */
export async function control<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${peers.control}${path}`, {
    method,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  const text = await response.text()
  if (!response.ok) throw new Error(`peers control ${path} answered ${response.status}: ${text}`)
  return (text ? JSON.parse(text) : null) as T
}

/** One HTTPS request for `host` through Caddy, trusting only pebble's roots (curl --resolve, in effect). */
export function httpsThroughCaddy(host: string): Promise<HttpsResult> {
  return control<HttpsResult>('GET', `/https?host=${encodeURIComponent(host)}`)
}

/** Sends `text` to 127.0.0.1:`port` and returns what came back (or the connection error). */
export function tcpRoundTrip(port: number, text: string): Promise<{ echoed?: string; error?: string }> {
  return control('GET', `/tcp?port=${port}&text=${encodeURIComponent(text)}`)
}

/** (Re)starts the reference agent as the panel's node, with its agent secret (and its own hostname). */
export async function startAgentAs(identity: AgentIdentity): Promise<void> {
  await control('POST', '/agent/start', identity)
}

/**
 * Carries the panel's fetches to `origin` (an https name the node's Caddy serves) through the control server,
 * which makes them against Caddy with that name as SNI, trusting only pebble's roots: workerd can neither
 * resolve a .test name nor trust pebble. Every other fetch goes out as usual. Answers the undo.
 */
export function fetchThroughCaddy(origin: string): () => void {
  const original = globalThis.fetch.bind(globalThis)
  const spy = vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
    const request = new Request(input, init)
    if (new URL(request.url).origin !== origin) return original(input, init)
    const carried: CaddyRequest = {
      url: request.url,
      method: request.method,
      headers: Object.fromEntries(request.headers),
      body: await request.text(),
    }
    const answer = await control<CaddyAnswer>('POST', '/caddy/request', carried)
    if ('error' in answer) throw new TypeError(`fetch to ${origin} failed: ${answer.error}`)
    return new Response(answer.body, { status: answer.status, headers: answer.headers })
  })
  return () => spy.mockRestore()
}

async function forward(request: RelayedRequest): Promise<void> {
  const answer = await send(request.path, {
    method: request.method,
    headers: request.headers,
    ...(request.method === 'GET' ? {} : { body: request.body }),
  })
  await control('POST', `/relay/answer?id=${request.id}`, {
    status: answer.status,
    body: answer.text,
    contentType: answer.headers.get('content-type') ?? 'text/plain',
  })
}

/**
 * Runs `work` while relaying the agent's calls to the panel (the certificate reports a prime makes), and
 * returns what `work` returned once the relay has stopped.
 */
export async function withAgentRelay<T>(work: () => Promise<T>): Promise<T> {
  let running = true
  const pump = (async () => {
    while (running) {
      const request = await control<RelayedRequest | null>('GET', '/relay/next?wait=500')
      if (request) await forward(request)
    }
  })()
  try {
    return await work()
  } finally {
    running = false
    await pump
  }
}

/** Enrolls the two real boxes as the panel's nameservers (ns1/ns2 under `label`) and returns their node ids. */
export async function enrollPeerBoxes(admin: Caller, label: string): Promise<string[]> {
  const ids: string[] = []
  for (const [i, box] of peers.boxes.entries()) {
    const row = await ok<{ id: string }>(
      'dnsServers.nameservers.enroll',
      {
        name: `${label}-ns${i + 1}`,
        hostname: `ns${i + 1}.${label}-panel.test`,
        publicIpv4: `192.0.2.${i + 1}`,
        agentUrl: `https://agent${i + 1}.${label}.test`,
        agentSecret: 'agent-secret-0123456789',
        powerDns: { apiUrl: box.apiUrl, apiKey: box.apiKey, serverId: 'localhost' },
      },
      admin,
    )
    ids.push(row.id)
  }
  return ids
}

// The agent keeps its own ACME account; the panel stores this key and never sends it.
const ACME_KEY =
  '-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIPeersSuiteUnusedAcmeAccountKey0000000\n-----END PRIVATE KEY-----'

/**
 * The panel's edge node for the suite: the local agent, its target 127.0.0.1; the agent runs as this node. With
 * `agentHostname`, the panel calls the agent at https://<agentHostname>:<Caddy's port> through the agent's own
 * vhost (see fetchThroughCaddy); without, directly over http.
 */
export interface EdgeNode {
  nodeId: string
  instanceId: string
  siteId: string
  agent: { agentUrl: string; agentSecret: string }
}

/** Creates the node (the local agent), an instance on 127.0.0.1 and a site on the suite's site port. */
export async function edgeNode(admin: Caller, label: string, agentHostname?: string): Promise<EdgeNode> {
  const agentSecret = `peers-agent-secret-${crypto.randomUUID()}`
  const agentUrl = agentHostname ? `https://${agentHostname}:${peers.httpsPort}` : peers.agentUrl
  const node = await ok<{ id: string }>(
    'nodes.create',
    { name: `${label}-edge`, agentUrl, agentHostname, agentSecret, publicIpv4: '127.0.0.1' },
    admin,
  )
  const instance = await ok<{ id: string }>(
    'instances.create',
    { nodeId: node.id, name: 'app', address: '127.0.0.1' },
    admin,
  )
  const site = await ok<{ id: string }>(
    'sites.create',
    { instanceId: instance.id, name: label, port: peers.sitePort },
    admin,
  )
  // The node's certificates come from the suite's pebble (the ssl-issuer default the routes' issuer follows).
  const issuer = await ok<{ id: string }>(
    'accounts.create',
    { kind: 'ssl-issuer', name: `${label}-pebble`, provider: 'pebble', token: ACME_KEY },
    admin,
  )
  await ok(
    'accounts.setDefault',
    { scope: 'node', scopeId: node.id, kind: 'ssl-issuer', accountId: issuer.id },
    admin,
  )
  await startAgentAs({ nodeId: node.id, secret: agentSecret, agentHostname })
  return { nodeId: node.id, instanceId: instance.id, siteId: site.id, agent: { agentUrl, agentSecret } }
}
