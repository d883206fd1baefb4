import { hmacSha256Hex, timingSafeEqual } from './hash.ts'

// Node agent contract v2 signatures, both ways between the panel and a node's agent. Unlike the webhook scheme
// (service-signature.ts, which signs only "<timestamp>.<raw body>"), the signed text binds the request to its
// direction, method and path and carries a nonce, so a captured request cannot be replayed to another call, the
// other way round, or twice.

export const AGENT_TIMESTAMP_HEADER = 'x-agent-timestamp'
export const AGENT_NONCE_HEADER = 'x-agent-nonce'
export const AGENT_SIGNATURE_HEADER = 'x-agent-signature'
/** How far a signed timestamp may be from the verifier's clock, in either direction. */
export const AGENT_SIGNATURE_TOLERANCE_MS = 5 * 60 * 1000

/** Who sends: the panel calling an agent, or an agent calling the panel back. */
export type AgentDirection = 'panel-to-agent' | 'agent-to-panel'

/** What a signature covers besides the secret: everything that identifies the request. */
export interface AgentRequest {
  direction: AgentDirection
  method: string
  /** The contract path as the receiver routes it (`/v2/edge/apply`, `/api/agent/v1/certificates`). */
  path: string
  /** The raw body exactly as sent; empty for a GET. */
  body: string
}

const NONCE = /^[A-Za-z0-9_-]{16,64}$/
const TIMESTAMP = /^\d{1,15}$/

/**
 * The signed text: a scheme tag and one field per line, the body last, so no field can run into another (the
 * method is a token, the path has no line break, the nonce and timestamp are checked against their patterns).
 */
function signedText(request: AgentRequest, timestamp: string, nonce: string): string {
  return [
    'hosting-panel-agent-v2',
    request.direction,
    request.method.toUpperCase(),
    request.path,
    timestamp,
    nonce,
    request.body,
  ].join('\n')
}

async function signature(secret: string, request: AgentRequest, timestamp: string, nonce: string) {
  return `sha256=${await hmacSha256Hex(secret, signedText(request, timestamp, nonce))}`
}

/** A fresh nonce: 128 random bits, base64url. */
export function newNonce(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16))
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '')
}

/** The three headers that sign an outgoing agent request. */
export async function agentSignatureHeaders(
  secret: string,
  request: AgentRequest,
  now = Date.now(),
  nonce = newNonce(),
): Promise<Record<string, string>> {
  const timestamp = String(now)
  return {
    [AGENT_TIMESTAMP_HEADER]: timestamp,
    [AGENT_NONCE_HEADER]: nonce,
    [AGENT_SIGNATURE_HEADER]: await signature(secret, request, timestamp, nonce),
  }
}

/** A verified request's nonce and until when it must be remembered (its timestamp leaves the window then). */
export type AgentVerdict = { ok: true; nonce: string; rememberUntil: number } | { ok: false; reason: string }

type HeaderSource = Headers | Record<string, string | string[] | undefined>

function header(headers: HeaderSource, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined
  const value = headers[name]
  return typeof value === 'string' ? value : undefined
}

/**
 * Verifies a signed agent request as received: the receiver passes its own direction, the method and path it
 * routes on and the raw body. Never throws. A verified nonce still has to be claimed against the nonces seen
 * within the window (the caller's store), which is what refuses a replay.
 */
export async function verifyAgentSignature(
  secret: string | null | undefined,
  request: AgentRequest,
  headers: HeaderSource,
  now = Date.now(),
): Promise<AgentVerdict> {
  if (typeof secret !== 'string' || secret === '') return { ok: false, reason: 'no secret to verify with' }
  const timestamp = header(headers, AGENT_TIMESTAMP_HEADER)
  const nonce = header(headers, AGENT_NONCE_HEADER)
  const given = header(headers, AGENT_SIGNATURE_HEADER)
  if (!timestamp || !nonce || !given) return { ok: false, reason: 'missing signature, timestamp or nonce' }
  if (!TIMESTAMP.test(timestamp))
    return { ok: false, reason: 'the timestamp is not a millisecond epoch number' }
  if (!NONCE.test(nonce)) return { ok: false, reason: 'the nonce is not 16 to 64 base64url characters' }
  const at = Number(timestamp)
  if (Math.abs(now - at) > AGENT_SIGNATURE_TOLERANCE_MS) {
    return { ok: false, reason: 'the timestamp is more than 5 minutes away' }
  }
  const expected = await signature(secret, request, timestamp, nonce)
  if (!timingSafeEqual(expected, given)) return { ok: false, reason: 'the signature does not match' }
  return { ok: true, nonce, rememberUntil: at + AGENT_SIGNATURE_TOLERANCE_MS }
}
