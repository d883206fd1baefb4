import type { IncomingMessage, ServerResponse } from 'node:http'
import { z } from 'zod'
import { RunCheckRequestSchema } from '../src/agent-contract/checks.ts'
import { AGENT_PATHS, EdgeStateSchema, HostnameRequestSchema } from '../src/agent-contract/v1.ts'
import { verifyAgentSignature } from '../src/lib/agent-signature.ts'
import type { EdgeAgent } from './edge-agent.ts'
import { AgentProblem, sendJson, sendProblem } from './problem.ts'
import type { SeenNonces } from './seen-nonces.ts'

const MAX_BODY_BYTES = 8 * 1024 * 1024

interface Route {
  schema: z.ZodType
  run(agent: EdgeAgent, input: unknown): Promise<unknown>
}

const hostname = (input: unknown) => HostnameRequestSchema.parse(input).hostname

const ROUTES: Record<string, Route> = {
  [AGENT_PATHS.apply]: {
    schema: EdgeStateSchema,
    run: (agent, input) => agent.apply(EdgeStateSchema.parse(input)),
  },
  [AGENT_PATHS.prime]: {
    schema: HostnameRequestSchema,
    run: (agent, input) => agent.prime(hostname(input)),
  },
  [AGENT_PATHS.renew]: {
    schema: HostnameRequestSchema,
    run: (agent, input) => agent.renew(hostname(input)),
  },
  [AGENT_PATHS.smoke]: { schema: HostnameRequestSchema, run: (agent, input) => agent.smoke(hostname(input)) },
  [AGENT_PATHS.health]: { schema: z.strictObject({}), run: (agent) => agent.health() },
  [AGENT_PATHS.runCheck]: {
    schema: RunCheckRequestSchema,
    run: async (agent, input) => agent.runCheck(RunCheckRequestSchema.parse(input)),
  },
  [AGENT_PATHS.installPowerDns]: {
    schema: z.unknown(),
    run: () => {
      throw new AgentProblem(501, 'not_implemented', 'this reference agent does not install PowerDNS')
    },
  },
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of request) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk))
    size += buffer.length
    if (size > MAX_BODY_BYTES) throw new AgentProblem(413, 'payload_too_large', 'the body is over 8 MiB')
    chunks.push(buffer)
  }
  return Buffer.concat(chunks).toString('utf8')
}

function parseJson(raw: string): unknown {
  try {
    return JSON.parse(raw)
  } catch {
    throw new AgentProblem(400, 'invalid_json', 'the body is not JSON')
  }
}

async function answer(
  agent: EdgeAgent,
  secret: string,
  nonces: SeenNonces,
  request: IncomingMessage,
): Promise<unknown> {
  if (request.method !== 'POST') throw new AgentProblem(405, 'method_not_allowed', 'every call is a POST')
  const raw = await readBody(request)
  // The signature covers the path the request arrived on: one signed for another call never gets this far.
  const path = new URL(request.url ?? '/', 'http://agent').pathname
  const verdict = await verifyAgentSignature(
    secret,
    { direction: 'panel-to-agent', method: request.method, path, body: raw },
    request.headers,
  )
  if (!verdict.ok) throw new AgentProblem(401, 'unauthenticated', `signature refused: ${verdict.reason}`)
  if (!(await nonces.claim(verdict.nonce, verdict.rememberUntil))) {
    throw new AgentProblem(401, 'unauthenticated', 'signature refused: the nonce was already used')
  }
  const route = ROUTES[path]
  if (!route) throw new AgentProblem(404, 'not_found', `no such call: ${path}`)
  const parsed = route.schema.safeParse(parseJson(raw))
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => ({
      path: issue.path.join('.'),
      message: issue.message,
    }))
    throw new AgentProblem(400, 'validation_failed', `invalid body: ${issues[0]?.path || 'body'}`, issues)
  }
  return route.run(agent, parsed.data)
}

/**
 * The contract v2 API: signed POSTs only, each accepted once (`nonces`, kept across restarts), problem+json for
 * every refusal.
 */
export function contractHandler(agent: EdgeAgent, secret: string, nonces: SeenNonces) {
  return (request: IncomingMessage, response: ServerResponse): void => {
    answer(agent, secret, nonces, request).then(
      (body) => sendJson(response, body),
      (error: unknown) => {
        if (error instanceof AgentProblem) return sendProblem(response, error)
        console.error(error)
        sendProblem(response, new AgentProblem(500, 'internal', 'internal error'))
      },
    )
  }
}

/**
 * Caddy's on-demand `ask`: `GET ?domain=<name>` → 200 only for the agent's own hostname and for a hostname of
 * the applied edge state that may be issued now (its app's ask URL said so, or the panel marked it issuable);
 * an allowed one is then watched until its certificate is served, and reported.
 */
export function askHandler(agent: EdgeAgent) {
  return (request: IncomingMessage, response: ServerResponse): void => {
    const domain = new URL(request.url ?? '/', 'http://agent').searchParams.get('domain') ?? ''
    void agent.mayIssue(domain).then((allowed) => {
      if (allowed) agent.watchIssuance(domain)
      response.writeHead(allowed ? 200 : 403, { 'content-type': 'text/plain' })
      response.end(allowed ? 'allowed' : 'not issuable now')
    })
  }
}
