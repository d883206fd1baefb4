import type { CertErrorKind, CertificateAttemptError } from '../src/agent-contract/certificate-attempts.ts'

// An ACME problem (RFC 8555 §6.7) as Caddy 2.6 logs it, in the CA's words, and what kind of obstacle it names.

const ACME_ERROR = 'urn:ietf:params:acme:error:'
const DETAIL_MAX = 1000

// How the CA says a name did not resolve for it: Let's Encrypt answers type `dns` ("DNS problem: NXDOMAIN
// looking up A for …"); pebble answers `connection` or `malformed` with "could not resolve URL …".
const UNRESOLVED = /could not resolve|no such host|NXDOMAIN|SERVFAIL|DNS problem/i
// Let's Encrypt's rate limit detail: "…, retry after 2025-01-01 00:00:00 UTC: see https://letsencrypt.org/…".
const RETRY_AFTER = /retry after (\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(?:\.\d+)? ?(?:UTC|Z)/i

/** The kind of obstacle an ACME problem names. */
export function classifyProblem(problemType: string | null, detail: string): CertErrorKind {
  const type = problemType?.startsWith(ACME_ERROR) ? problemType.slice(ACME_ERROR.length) : null
  if (type === 'caa') return 'caa'
  if (type === 'rateLimited') return 'rate_limited'
  if (type === 'dns' || UNRESOLVED.test(detail)) return 'dns'
  if (type === 'connection' || type === 'tls') return 'connection'
  if (type === 'unauthorized' || type === 'incorrectResponse') return 'unauthorized'
  return 'other'
}

/** The error the agent reports for a problem (or for an error text with none). */
export function attemptError(problemType: string | null, detail: string): CertificateAttemptError {
  const kind = classifyProblem(problemType, detail)
  const lifts = kind === 'rate_limited' ? RETRY_AFTER.exec(detail) : null
  return {
    kind,
    problemType,
    detail: detail.slice(0, DETAIL_MAX) || 'no detail given',
    retryAfter: lifts ? new Date(`${lifts[1]}T${lifts[2]}Z`).toISOString() : null,
  }
}

/**
 * The problem inside an error text of Caddy's, as acmez writes one: `HTTP <status> <type> - <detail>`; null
 * when the text holds none (an error of Caddy's own, such as no solver left or a storage failure).
 */
export function problemInText(text: string): { problemType: string; detail: string } | null {
  const match = /HTTP \d{3} (urn:ietf:params:acme:error:[A-Za-z]+) - (.*?)(?: \(ca=[^)]*\))?$/s.exec(text)
  return match?.[1] && match[2] !== undefined ? { problemType: match[1], detail: match[2] } : null
}
