import type { IncomingMessage, ServerResponse } from 'node:http'
import { z } from 'zod'
import { RunCheckRequestSchema } from '../src/agent-contract/checks.ts'
import {
  EDGE_DELTA_PATHS,
  EdgeChangesSchema,
  EdgeStatePartSchema,
} from '../src/agent-contract/edge-changes.ts'
import { AGENT_PATHS, EdgeStateSchema, HostnameRequestSchema } from '../src/agent-contract/v1.ts'
import { verifyAgentSignature } from '../src/lib/agent-signature.ts'
import type { EdgeAgent } from './edge-agent.ts'
import { AgentProblem, sendJson, sendProblem } from './problem.ts'
import type { SeenNonces } from './seen-nonces.ts'

const MIB = 1024 * 1024
// Every body but a whole state: a changes body or a part holds at most 10,000 vhosts (about 1.5 MB of JSON).
const MAX_BODY_BYTES = 8 * MIB
// A whole state: 110,000 vhosts of up to about 600 bytes each (a hostname, an upstream, an ask URL of ordinary
// length) and the forwards.
const MAX_STATE_BYTES = 64 * MIB

interface Route {
  schema: z.ZodType
  /** Runs the call on the body `schema` parsed (so the body is parsed once, which counts for a whole state). */
  run(agent: EdgeAgent, input: unknown): Promise<unknown>
  maxBytes: number
}

function route<T>(
  schema: z.ZodType<T>,
  run: (agent: EdgeAgent, input: T) => Promise<unknown>,
  maxBytes = MAX_BODY_BYTES,
): Route {
  return { schema, run: (agent, input) => run(agent, input as T), maxBytes }
}

const ROUTES: Record<string, Route> = {
  [AGENT_PATHS.apply]: route(EdgeStateSchema, (agent, state) => agent.apply(state), MAX_STATE_BYTES),
  [EDGE_DELTA_PATHS.changes]: route(EdgeChangesSchema, (agent, changes) => agent.changes(changes)),
  [EDGE_DELTA_PATHS.parts]: route(EdgeStatePartSchema, (agent, part) => agent.part(part)),
  [AGENT_PATHS.prime]: route(HostnameRequestSchema, (agent, { hostname }) => agent.prime(hostname)),
  [AGENT_PATHS.renew]: route(HostnameRequestSchema, (agent, { hostname }) => agent.renew(hostname)),
  [AGENT_PATHS.smoke]: route(HostnameRequestSchema, (agent, { hostname }) => agent.smoke(hostname)),
  [AGENT_PATHS.health]: route(z.strictObject({}), (agent) => agent.health()),
  [AGENT_PATHS.runCheck]: route(RunCheckRequestSchema, async (agent, request) => agent.runCheck(request)),
  [AGENT_PATHS.installPowerDns]: route(z.unknown(), () => {
    throw new AgentProblem(501, 'not_implemented', 'this reference agent does not install PowerDNS')
  }),
}

// Past the cap, the rest of the body is read and dropped (not stored), so the 413 reaches a sender still sending;
// the answer then closes the connection.
function readBody(request: IncomingMessage, maxBytes: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let chunks: Buffer[] | null = []
    let size = 0
    request.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size <= maxBytes) chunks?.push(chunk)
      else if (chunks) {
        chunks = null
        reject(new AgentProblem(413, 'payload_too_large', `the body is over ${maxBytes / MIB} MiB`))
      }
    })
    request.once('error', reject)
    request.once('end', () => resolve(Buffer.concat(chunks ?? []).toString('utf8')))
  })
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
  const path = new URL(request.url ?? '/', 'http://agent').pathname
  const raw = await readBody(request, ROUTES[path]?.maxBytes ?? MAX_BODY_BYTES)
  // The signature covers the path the request arrived on: one signed for another call never gets this far.
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
        if (error instanceof AgentProblem) {
          if (error.status === 413) response.setHeader('connection', 'close')
          return sendProblem(response, error)
        }
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
