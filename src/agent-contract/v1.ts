import { z } from 'zod'

// The node agent contract, version 2 (this file keeps the name of its first version): what the panel sends a
// node's agent and what it answers, and the agent's calls back. Shared by the panel (src/outside/node-agent.ts,
// src/agent-callbacks/) and the reference agent (node-agent/), so neither can drift from the other. Every call
// is signed with the node's agent secret by src/lib/agent-signature.ts (direction, method, path, timestamp
// within 5 minutes either way, a nonce refused when seen again, the raw body); panel → agent calls are JSON
// POSTs under /v2; errors are application/problem+json with a `detail` in the agent's words.

export const CONTRACT_VERSION = 'v2'

/** The agent's calls (each a signed POST). */
export const AGENT_PATHS = {
  apply: '/v2/edge/apply',
  prime: '/v2/certificates/prime',
  renew: '/v2/certificates/renew',
  smoke: '/v2/smoke',
  health: '/v2/health',
  installPowerDns: '/v2/powerdns/install',
  /** Run one probe check from the node (checks.ts); added in contract v2 with agent 0.3.0. */
  runCheck: '/v2/checks/run',
} as const

/**
 * The panel's callbacks for agents: certificate reports (POST), the node's current edge state (GET) and the
 * results of the probe checks the node ran (POST; the first callback made in contract v2, hence its path).
 */
export const CALLBACK_PATHS = {
  certificates: '/api/agent/v1/certificates',
  edgeState: '/api/agent/v1/edge-state',
  checkResults: '/api/agent/v2/check-results',
} as const

export const ISSUERS = ['pebble', 'letsencrypt'] as const
export const IssuerSchema = z.enum(ISSUERS)

/**
 * An http virtual host: TLS on demand for `hostname`, proxied to the instance's address and port. Whether the
 * agent's ask gate lets the proxy obtain a certificate: with `askUrl`, only when `GET <askUrl>?domain=<hostname>`
 * answers 200; without it, only when `issuable` (absent: issuable, which is what a panel before these two fields
 * meant).
 */
export const VhostSchema = z.strictObject({
  hostname: z.string().min(1).max(253),
  /** `<address>:<port>` of the instance the site runs on. */
  upstream: z.string().min(3).max(300),
  issuer: IssuerSchema,
  /** Whether the panel verified that the hostname may have a certificate issued now. */
  issuable: z.boolean().optional(),
  /** The app's own ask endpoint, which decides instead of `issuable`. */
  askUrl: z
    .url({ protocol: /^https?$/ })
    .max(2048)
    .optional(),
})
export type Vhost = z.infer<typeof VhostSchema>

/** A raw forward (the "proxy device"): traffic to `listenPort`/`proto` on the node goes to `upstream`. */
export const ForwardSchema = z.strictObject({
  listenPort: z.number().int().min(1).max(65535),
  proto: z.enum(['tcp', 'udp']),
  upstream: z.string().min(3).max(300),
})
export type Forward = z.infer<typeof ForwardSchema>

/** Most vhosts in a whole state: the node cap's ceiling (100,000 hostnames) with room for the node's domains. */
export const MAX_VHOSTS_PER_STATE = 110_000

/** `POST /v2/edge/apply`: the node's whole desired edge state. Idempotent by `configVersion`, which only grows. */
export const EdgeStateSchema = z.strictObject({
  configVersion: z.number().int().min(1),
  vhosts: z.array(VhostSchema).max(MAX_VHOSTS_PER_STATE),
  forwards: z.array(ForwardSchema).max(1000),
})
export type EdgeState = z.infer<typeof EdgeStateSchema>

/** An entry of the applied state the agent does not serve, named as the state names it, with the reason. */
export const EntryFailureSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('vhost'), hostname: z.string().min(1).max(253), error: z.string().max(2000) }),
  z.object({
    kind: z.literal('forward'),
    listenPort: z.number().int().min(1).max(65535),
    proto: z.enum(['tcp', 'udp']),
    error: z.string().max(2000),
  }),
])
export type EntryFailure = z.infer<typeof EntryFailureSchema>

/**
 * The answer to an apply: the version now serving. An agent that already serves a newer version keeps it and
 * answers that version (the panel then knows its push was superseded). The agent applies per entry: `failed`
 * lists the entries of the serving version it could not serve (a port it cannot bind, an entry it cannot
 * render), each with its reason, while every other entry serves; an agent before per-entry outcomes leaves it
 * out, which means every entry serves. A config the proxy refuses as a whole is a 422 problem whose detail is
 * the proxy's own error text; the previous config keeps serving.
 */
export const AppliedSchema = z.object({
  appliedVersion: z.number().int().min(0),
  /** The firewall rules the agent rendered for the forwards, and whether it applied them (off by default). */
  firewall: z.object({ managed: z.boolean(), rules: z.array(z.string()) }),
  failed: z
    .array(EntryFailureSchema)
    .max(MAX_VHOSTS_PER_STATE + 1000)
    .optional(),
})
export type Applied = z.infer<typeof AppliedSchema>

/** `POST /v2/certificates/prime` and `/v2/certificates/renew`: `{hostname}`. */
export const HostnameRequestSchema = z.strictObject({ hostname: z.string().min(1).max(253) })

/** What the agent saw served for a hostname after a TLS handshake with it as SNI. */
export const CertificateObservationSchema = z.strictObject({
  hostname: z.string().min(1).max(253),
  notAfter: z.iso.datetime({ offset: true }),
  serial: z.string().min(1).max(128),
  issuer: z.string().min(1).max(256),
  observedAt: z.iso.datetime({ offset: true }),
})
export type CertificateObservation = z.infer<typeof CertificateObservationSchema>

/** `POST /v2/smoke` `{hostname}`: one HTTPS request for the hostname through the node's proxy. */
export const SmokeResultSchema = z.object({
  ok: z.boolean(),
  status: z.number().int().nullable(),
  detail: z.string().max(500),
})
export type SmokeResult = z.infer<typeof SmokeResultSchema>

/** `POST /v2/health` `{}`: who answers and what it serves. */
export const HealthSchema = z.object({
  agentVersion: z.string(),
  contract: z.literal(CONTRACT_VERSION),
  appliedVersion: z.number().int().min(0),
  proxy: z.object({ name: z.string(), version: z.string().nullable(), reachable: z.boolean() }),
})
export type Health = z.infer<typeof HealthSchema>

/** The agent → panel report: `POST <panel>/api/agent/v1/certificates`, signed, plus `x-node-id`. */
export const CertificateReportSchema = z.strictObject({
  observations: z.array(CertificateObservationSchema).max(500),
})

/** `GET <panel>/api/agent/v1/edge-state` (signed, plus `x-node-id`): the node's current desired edge state, if any. */
export const EdgeStateAnswerSchema = z.object({ state: EdgeStateSchema.nullable() })
export type EdgeStateAnswer = z.infer<typeof EdgeStateAnswerSchema>
