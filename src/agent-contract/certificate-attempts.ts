import { z } from 'zod'

// Contract v2, certificate attempts (agent 0.5.0): what Caddy itself logged of each issuance attempt for a
// hostname the agent serves, in the CA's words. The agent reads Caddy's tls loggers from a log file of its own
// and posts, at most every few seconds, the newest outcome per hostname, in batches of at most 500 (and 60,000
// bytes): never one call per log line. A panel before this callback answers 404; an agent before 0.5.0 never calls it.

/** `POST <panel>/api/agent/v2/certificate-attempts`, signed like every callback, plus `x-node-id`. */
export const CERTIFICATE_ATTEMPTS_CALLBACK = '/api/agent/v2/certificate-attempts'

/**
 * What stood in the way, from the ACME problem the CA answered: its CAA check refused (`caa`), its rate limit
 * (`rate_limited`), the name did not resolve for it (`dns`), it could not connect for HTTP-01 or TLS-ALPN-01
 * (`connection`), it reached the name but not this node's answer (`unauthorized`), or anything else (`other`).
 */
export const CERT_ERROR_KINDS = ['caa', 'rate_limited', 'dns', 'connection', 'unauthorized', 'other'] as const
export const CertErrorKindSchema = z.enum(CERT_ERROR_KINDS)
export type CertErrorKind = z.infer<typeof CertErrorKindSchema>

export const CertificateAttemptErrorSchema = z.strictObject({
  kind: CertErrorKindSchema,
  /** The ACME problem type (`urn:ietf:params:acme:error:…`); null when the failure carried none. */
  problemType: z.string().min(1).max(200).nullable(),
  /** The problem's detail as the CA wrote it (or Caddy's error text when there was no problem). */
  detail: z.string().min(1).max(1000),
  /** rate_limited only: when the CA says the limit lifts, when it said so. */
  retryAfter: z.iso.datetime({ offset: true }).nullable(),
})
export type CertificateAttemptError = z.infer<typeof CertificateAttemptErrorSchema>

/** The outcome of the newest attempt for a hostname. */
export const CertificateAttemptSchema = z
  .strictObject({
    hostname: z.string().min(1).max(253),
    /** When Caddy logged the outcome. */
    at: z.iso.datetime({ offset: true }),
    outcome: z.enum(['obtained', 'failed']),
    /** Exactly when the outcome is `failed`. */
    error: CertificateAttemptErrorSchema.nullable(),
    /** When Caddy will try again by itself, only when its log says so and it will still be trying then. */
    nextAttemptAt: z.iso.datetime({ offset: true }).nullable(),
  })
  .refine((attempt) => (attempt.outcome === 'failed') === (attempt.error !== null), {
    path: ['error'],
    message: 'error is given exactly when the outcome is failed',
  })
export type CertificateAttempt = z.infer<typeof CertificateAttemptSchema>

export const MAX_ATTEMPTS_PER_REPORT = 500
/** The agent keeps a report's body under this many bytes: the panel reads a callback's body up to 64 KiB. */
export const MAX_ATTEMPTS_REPORT_BYTES = 60_000

export const CertificateAttemptReportSchema = z.strictObject({
  attempts: z.array(CertificateAttemptSchema).min(1).max(MAX_ATTEMPTS_PER_REPORT),
})
export type CertificateAttemptReport = z.infer<typeof CertificateAttemptReportSchema>
