import { z } from '@hono/zod-openapi'
import { CheckTakenSchema, type RunCheckRequest } from '../agent-contract/checks'
import {
  EDGE_DELTA_PATHS,
  type EdgeChanges,
  type EdgeStatePart,
  type PartReceived,
  PartReceivedSchema,
} from '../agent-contract/edge-changes'
import {
  AGENT_PATHS,
  type Applied,
  AppliedSchema,
  type CertificateObservation,
  CertificateObservationSchema,
  type EdgeState,
  type Health,
  HealthSchema,
  type SmokeResult,
  SmokeResultSchema,
} from '../agent-contract/v1'
import { agentSignatureHeaders } from '../lib/agent-signature'
import { readErrorText, readJson } from './counterpart-body'
import { jsonErrorField, quotableText } from './counterpart-text'
import { fetchOutbound } from './fetch-outbound'
import { TLS_HANDSHAKE_CAUSES } from './why-unanswered'

/** A node's agent: its base URL and the shared secret that signs every call. */
export interface NodeAgent {
  agentUrl: string
  agentSecret: string
}

/** The agent could not be reached, refused the call, or answered something unexpected. */
export class NodeAgentError extends Error {
  constructor(
    readonly status: number | null,
    message: string,
  ) {
    super(message)
  }
}

/** The `detail` of a problem+json body (how contract agents refuse), or null when the body is not one. */
function problemDetail(text: string): string | null {
  try {
    const parsed: unknown = JSON.parse(text)
    if (parsed && typeof parsed === 'object' && 'detail' in parsed && typeof parsed.detail === 'string') {
      return parsed.detail
    }
  } catch {}
  return null
}

/**
 * POSTs a JSON body to the agent, signed for this call alone (contract v2: direction, method, path, timestamp,
 * nonce and body under the node's agent secret), and parses the answer. A refusal quotes the agent's words only
 * when they hold none of `withheld` (secrets the body carries).
 */
async function signedPost<T>(
  agent: NodeAgent,
  path: `/${string}`,
  body: unknown,
  schema: z.ZodType<T>,
  timeoutMs: number,
  withheld: readonly string[],
): Promise<T> {
  const raw = JSON.stringify(body)
  const url = `${agent.agentUrl.replace(/\/+$/, '')}${path}`
  const signature = await agentSignatureHeaders(agent.agentSecret, {
    direction: 'panel-to-agent',
    method: 'POST',
    path,
    body: raw,
  })
  const answer = await fetchOutbound(
    url,
    { method: 'POST', headers: { 'content-type': 'application/json', ...signature }, body: raw },
    timeoutMs,
  )
  if (!answer.answered) {
    throw new NodeAgentError(
      null,
      answer.kind === 'tls-handshake'
        ? `the panel does not trust the certificate the agent at ${agent.agentUrl} presented (TLS handshake failed): ${TLS_HANDSHAKE_CAUSES}`
        : `the node agent at ${agent.agentUrl} did not answer: ${answer.reason}`,
    )
  }
  const { response } = answer
  if (!response.ok) {
    const text = await readErrorText(response)
    const quoted = quotableText(jsonErrorField(text) ?? problemDetail(text) ?? text, [
      ...withheld,
      agent.agentSecret,
    ])
    throw new NodeAgentError(
      response.status,
      quoted
        ? `the node agent answered ${response.status}: ${quoted}`
        : `the node agent answered ${response.status}`,
    )
  }
  const json = await readJson(response)
  if (json === undefined) {
    throw new NodeAgentError(response.status, `the node agent answered ${path} with a body that is not JSON`)
  }
  const parsed = schema.safeParse(json)
  if (!parsed.success)
    throw new NodeAgentError(response.status, `the node agent answered ${path} unexpectedly`)
  return parsed.data
}

const PowerDnsInstalledSchema = z.object({
  apiUrl: z.url({ protocol: /^https?$/ }),
  serverId: z.string().min(1),
  version: z.string(),
})
export type PowerDnsInstalled = z.infer<typeof PowerDnsInstalledSchema>

// Installing packages takes a while; the agent answers only when PowerDNS answers its API.
const INSTALL_TIMEOUT_MS = 120_000

/**
 * Asks the agent to install (or reconfigure) PowerDNS Authoritative with the given API key and to report
 * where its HTTP API answers: `POST /v2/powerdns/install {apiKey}` → `{apiUrl, serverId, version}`.
 */
export function installPowerDns(agent: NodeAgent, apiKey: string): Promise<PowerDnsInstalled> {
  return signedPost(
    agent,
    AGENT_PATHS.installPowerDns,
    { apiKey },
    PowerDnsInstalledSchema,
    INSTALL_TIMEOUT_MS,
    [apiKey],
  )
}

// Contract v2 (src/agent-contract/v1.ts). Loading a proxy config or priming a certificate (an ACME order) takes
// a while; a smoke request and a health report answer quickly.
const APPLY_TIMEOUT_MS = 30_000
const CERTIFICATE_TIMEOUT_MS = 90_000
const SMOKE_TIMEOUT_MS = 20_000
const HEALTH_TIMEOUT_MS = 10_000
// The agent takes a check at once and posts its result later.
const RUN_CHECK_TIMEOUT_MS = 10_000

const UNQUOTABLE_ENTRY_ERROR = 'the node agent did not serve it (its reason is withheld)'

/**
 * Pushes the node's whole desired edge state: `POST /v2/edge/apply` → the version now serving and the entries
 * of it the agent could not serve (none from an agent before per-entry outcomes), their reasons quoted like any
 * of the agent's words.
 */
export async function applyEdgeState(agent: NodeAgent, state: EdgeState): Promise<Applied> {
  return quoted(agent, await signedPost(agent, AGENT_PATHS.apply, state, AppliedSchema, APPLY_TIMEOUT_MS, []))
}

function quoted(agent: NodeAgent, applied: Applied): Applied {
  const failed = (applied.failed ?? []).map((entry) => ({
    ...entry,
    error: quotableText(entry.error, [agent.agentSecret]) ?? UNQUOTABLE_ENTRY_ERROR,
  }))
  return { ...applied, failed }
}

/** What an agent answered to changes: applied, 404 (an agent before 0.4.0), or 409 (it serves another version). */
export type ChangesAnswer =
  | { kind: 'applied'; applied: Applied }
  | { kind: 'unsupported' }
  | { kind: 'elsewhere' }

// An agent before 0.4.0 answers 404 to the delta paths; one that serves another version than the base, 409.
function deltaAnswer(error: unknown): 'unsupported' | 'elsewhere' | null {
  if (!(error instanceof NodeAgentError)) return null
  return error.status === 404 ? 'unsupported' : error.status === 409 ? 'elsewhere' : null
}

/** Sends what changed since the version the agent serves: `POST /v2/edge/changes`. */
export async function sendEdgeChanges(agent: NodeAgent, changes: EdgeChanges): Promise<ChangesAnswer> {
  try {
    const applied = await signedPost(
      agent,
      EDGE_DELTA_PATHS.changes,
      changes,
      AppliedSchema,
      APPLY_TIMEOUT_MS,
      [],
    )
    return { kind: 'applied', applied: quoted(agent, applied) }
  } catch (error) {
    const kind = deltaAnswer(error)
    if (kind) return { kind }
    throw error
  }
}

/** Sends one part of a whole state: `POST /v2/edge/parts`; null from an agent before 0.4.0 (404). */
export async function sendEdgeStatePart(agent: NodeAgent, part: EdgeStatePart): Promise<PartReceived | null> {
  try {
    const received = await signedPost(
      agent,
      EDGE_DELTA_PATHS.parts,
      part,
      PartReceivedSchema,
      APPLY_TIMEOUT_MS,
      [],
    )
    return { ...received, applied: received.applied && quoted(agent, received.applied) }
  } catch (error) {
    if (deltaAnswer(error) === 'unsupported') return null
    throw error
  }
}

/** Makes the node serve (issuing on demand) a certificate for the hostname and reports what it serves. */
export function primeCertificate(agent: NodeAgent, hostname: string): Promise<CertificateObservation> {
  return signedPost(
    agent,
    AGENT_PATHS.prime,
    { hostname },
    CertificateObservationSchema,
    CERTIFICATE_TIMEOUT_MS,
    [],
  )
}

/** Drops the node's stored certificate for the hostname, primes a new one and reports it. */
export function renewCertificate(agent: NodeAgent, hostname: string): Promise<CertificateObservation> {
  return signedPost(
    agent,
    AGENT_PATHS.renew,
    { hostname },
    CertificateObservationSchema,
    CERTIFICATE_TIMEOUT_MS,
    [],
  )
}

/** Has the node make one HTTPS request for the hostname through its proxy: `POST /v2/smoke`. */
export function smokeTest(agent: NodeAgent, hostname: string): Promise<SmokeResult> {
  return signedPost(agent, AGENT_PATHS.smoke, { hostname }, SmokeResultSchema, SMOKE_TIMEOUT_MS, [])
}

/** The agent's version, the configVersion it serves and its proxy's state: `POST /v2/health`. */
export function agentHealth(agent: NodeAgent): Promise<Health> {
  return signedPost(agent, AGENT_PATHS.health, {}, HealthSchema, HEALTH_TIMEOUT_MS, [])
}

/** Asks the node to run one probe check and post its result back: `POST /v2/checks/run` → `{accepted: true}`. */
export async function runNodeCheck(agent: NodeAgent, request: RunCheckRequest): Promise<void> {
  await signedPost(agent, AGENT_PATHS.runCheck, request, CheckTakenSchema, RUN_CHECK_TIMEOUT_MS, [])
}
