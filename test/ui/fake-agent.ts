import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import {
  type CertificateObservation,
  CONTRACT_VERSION,
  EdgeStateSchema,
  HostnameRequestSchema,
} from '../../src/agent-contract/v1.ts'
import { verifyAgentSignature } from '../../src/lib/agent-signature.ts'

// A node agent speaking contract v2 on 127.0.0.1 for the UI tests (the workerd fake in test/fakes/node-agent.ts
// runs only inside workerd): it verifies the signature with one shared secret, accepts every apply, "issues" a
// certificate for any routed hostname and passes the smoke test. Every node the UI tests create points here.

/** The agent secret every UI-test node must be created with. */
export const FAKE_AGENT_SECRET = 'ui-fake-agent-secret-0001'

interface Answer {
  status: number
  body: unknown
}

const problem = (status: number, detail: string): Answer => ({
  status,
  body: { type: 'about:blank', title: 'refused', status, detail },
})

/** The agent's state: the newest version it applied and the certificates it observed, for all nodes at once. */
class FakeAgentState {
  // Health answers the highest version any node had applied, so no node's check finds its agent behind.
  private highestApplied = 0
  private readonly certificates = new Map<string, CertificateObservation>()
  private serials = 0

  answer(path: string, body: unknown): Answer {
    switch (path) {
      case '/v2/health':
        return {
          status: 200,
          body: {
            agentVersion: 'ui-fake-1.0.0',
            contract: CONTRACT_VERSION,
            appliedVersion: this.highestApplied,
            proxy: { name: 'caddy', version: '2.6.2', reachable: true },
          },
        }
      case '/v2/edge/apply':
        return this.apply(body)
      case '/v2/certificates/prime':
      case '/v2/certificates/renew':
        return this.certificate(body, path.endsWith('renew'))
      case '/v2/smoke': {
        const parsed = HostnameRequestSchema.safeParse(body)
        if (!parsed.success) return problem(400, 'hostname is required')
        return {
          status: 200,
          body: { ok: true, status: 200, detail: `GET https://${parsed.data.hostname}/ answered 200` },
        }
      }
      default:
        return problem(404, `the UI fake agent does not answer ${path}`)
    }
  }

  // Nodes share this one agent, so a version is kept per call rather than compared across nodes.
  private apply(body: unknown): Answer {
    const parsed = EdgeStateSchema.safeParse(body)
    if (!parsed.success) return problem(400, `not an edge state: ${parsed.error.message}`)
    this.highestApplied = Math.max(this.highestApplied, parsed.data.configVersion)
    const rules = parsed.data.forwards.map((f) => `-A INPUT -p ${f.proto} --dport ${f.listenPort} -j ACCEPT`)
    return {
      status: 200,
      body: { appliedVersion: parsed.data.configVersion, firewall: { managed: false, rules } },
    }
  }

  private certificate(body: unknown, renew: boolean): Answer {
    const parsed = HostnameRequestSchema.safeParse(body)
    if (!parsed.success) return problem(400, 'hostname is required')
    const { hostname } = parsed.data
    const served = this.certificates.get(hostname)
    if (served && !renew) return { status: 200, body: served }
    const now = new Date()
    const observation: CertificateObservation = {
      hostname,
      notAfter: new Date(now.getTime() + 90 * 86_400_000).toISOString(),
      serial: String(++this.serials).padStart(16, '0'),
      issuer: 'CN=Pebble Intermediate CA',
      observedAt: now.toISOString(),
    }
    this.certificates.set(hostname, observation)
    return { status: 200, body: observation }
  }
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of request) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

function send(response: ServerResponse, { status, body }: Answer): void {
  const type = status < 300 ? 'application/json' : 'application/problem+json'
  response.writeHead(status, { 'content-type': type }).end(JSON.stringify(body))
}

/** Starts the fake agent on a free 127.0.0.1 port; resolves with its URL and a function that stops it. */
export async function startFakeAgent(): Promise<{ url: string; close: () => Promise<void> }> {
  const state = new FakeAgentState()
  const server = createServer((request, response) => {
    void (async () => {
      const raw = await readBody(request)
      const headers = new Headers()
      for (const [name, value] of Object.entries(request.headers))
        if (typeof value === 'string') headers.set(name, value)
      const path = new URL(request.url ?? '/', 'http://agent').pathname
      const verdict = await verifyAgentSignature(
        FAKE_AGENT_SECRET,
        { direction: 'panel-to-agent', method: request.method ?? '', path, body: raw },
        headers,
      )
      if (!verdict.ok) return send(response, problem(401, verdict.reason))
      if (request.method !== 'POST') return send(response, problem(404, 'not found'))
      send(response, state.answer(path, JSON.parse(raw)))
    })().catch((error: unknown) => send(response, problem(500, String(error))))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}
