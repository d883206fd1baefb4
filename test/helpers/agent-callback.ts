import { CERTIFICATE_ATTEMPTS_CALLBACK } from '../../src/agent-contract/certificate-attempts'
import { RENEWAL_WINDOWS_CALLBACK } from '../../src/agent-contract/renewal-windows'
import { type AgentRequest, agentSignatureHeaders } from '../../src/lib/agent-signature'
import { type CallResult, send } from './http'

/** The agent secret the test fixtures' nodes are created with. */
export const FIXTURE_AGENT_SECRET = 'agent-secret-0123456789'

/** The signed headers of a node's callback, as the reference agent sends them (contract v2). */
export async function callbackHeaders(
  nodeId: string,
  request: Omit<AgentRequest, 'direction'>,
  secret = FIXTURE_AGENT_SECRET,
  overrides: Partial<AgentRequest> = {},
): Promise<Record<string, string>> {
  return {
    ...(request.method === 'POST' ? { 'content-type': 'application/json' } : {}),
    'x-node-id': nodeId,
    ...(await agentSignatureHeaders(secret, { direction: 'agent-to-panel', ...request, ...overrides })),
  }
}

/** A signed `POST` of `body` as JSON from the node to `path`. */
async function postSigned(nodeId: string, path: string, body: unknown, secret: string): Promise<CallResult> {
  const raw = JSON.stringify(body)
  const headers = await callbackHeaders(nodeId, { method: 'POST', path, body: raw }, secret)
  return send(path, { method: 'POST', headers, body: raw })
}

/** A node reports certificate observations: `POST /api/agent/v1/certificates`, signed. */
export function reportCertificates(
  nodeId: string,
  body: unknown,
  secret = FIXTURE_AGENT_SECRET,
): Promise<CallResult> {
  return postSigned(nodeId, '/api/agent/v1/certificates', body, secret)
}

/** A node asks for its current edge state: `GET /api/agent/v1/edge-state`, signed. */
export async function askEdgeState(nodeId: string, secret = FIXTURE_AGENT_SECRET): Promise<CallResult> {
  const path = '/api/agent/v1/edge-state'
  return send(path, { headers: await callbackHeaders(nodeId, { method: 'GET', path, body: '' }, secret) })
}

/** A node posts the result of a check it ran: `POST /api/agent/v2/check-results`, signed. */
export function reportCheckResult(
  nodeId: string,
  body: unknown,
  secret = FIXTURE_AGENT_SECRET,
): Promise<CallResult> {
  return postSigned(nodeId, '/api/agent/v2/check-results', body, secret)
}

/** A node reads a page of its edge state: `POST /api/agent/v2/edge-state-parts {cursor}`, signed. */
export function askEdgeStatePage(
  nodeId: string,
  body: unknown,
  secret = FIXTURE_AGENT_SECRET,
): Promise<CallResult> {
  return postSigned(nodeId, '/api/agent/v2/edge-state-parts', body, secret)
}

/** A node reports its newest issuance outcomes: `POST /api/agent/v2/certificate-attempts`, signed. */
export function reportCertificateAttempts(
  nodeId: string,
  body: unknown,
  secret = FIXTURE_AGENT_SECRET,
): Promise<CallResult> {
  return postSigned(nodeId, CERTIFICATE_ATTEMPTS_CALLBACK, body, secret)
}

/** A node reports its certificates' ARI renewal windows: `POST /api/agent/v2/renewal-windows`, signed. */
export function reportRenewalWindows(
  nodeId: string,
  body: unknown,
  secret = FIXTURE_AGENT_SECRET,
): Promise<CallResult> {
  return postSigned(nodeId, RENEWAL_WINDOWS_CALLBACK, body, secret)
}
