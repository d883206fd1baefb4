import type { OpenAPIHono } from '@hono/zod-openapi'
import { createRoute, z } from '@hono/zod-openapi'
import type { MiddlewareHandler } from 'hono'
import { CertificateAttemptReportSchema } from '../agent-contract/certificate-attempts'
import { CheckResultRecordedSchema, CheckResultReportSchema } from '../agent-contract/checks'
import { EdgeStatePageRequestSchema, EdgeStatePageSchema } from '../agent-contract/edge-changes'
import { RenewalWindowReportSchema } from '../agent-contract/renewal-windows'
import { CertificateReportSchema, EdgeStateAnswerSchema } from '../agent-contract/v1'
import { forgetReplicaCopies } from '../db/replica-copy'
import type { AppEnv } from '../env'
import { problemResponses } from '../rpc/routes'
import { CERTIFICATE_ATTEMPTS_CALLBACK, receiveCertificateAttempts } from './certificate-attempts'
import { CERTIFICATES_PATH, receiveCertificates } from './certificates'
import { CHECK_RESULTS_PATH, receiveCheckResult } from './check-results'
import { answerEdgeState, EDGE_STATE_PATH } from './edge-state'
import { answerEdgeStatePage, EDGE_STATE_PARTS_PATH } from './edge-state-parts'
import { RENEWAL_WINDOWS_CALLBACK, receiveRenewalWindows } from './renewal-windows'

// A node's report writes outside any procedure commit: this isolate's copies of hot reads must not outlive it.
const dropCopiesAfter: MiddlewareHandler<AppEnv> = async (_c, next) => {
  await next()
  forgetReplicaCopies()
}

/**
 * Mounts the node → panel callbacks. They are not procedures (a node signs with its agent secret; no principal),
 * so they are documented here, beside the handlers, rather than generated from the registry.
 */
export function mountAgentCallbacks(app: OpenAPIHono<AppEnv>): void {
  app.post(CERTIFICATES_PATH, dropCopiesAfter, receiveCertificates)
  app.get(EDGE_STATE_PATH, answerEdgeState)
  app.post(CHECK_RESULTS_PATH, dropCopiesAfter, receiveCheckResult)
  app.post(EDGE_STATE_PARTS_PATH, answerEdgeStatePage)
  app.post(CERTIFICATE_ATTEMPTS_CALLBACK, dropCopiesAfter, receiveCertificateAttempts)
  app.post(RENEWAL_WINDOWS_CALLBACK, dropCopiesAfter, receiveRenewalWindows)
  app.openAPIRegistry.registerPath(certificatesRoute)
  app.openAPIRegistry.registerPath(edgeStateRoute)
  app.openAPIRegistry.registerPath(edgeStatePartsRoute)
  app.openAPIRegistry.registerPath(checkResultsRoute)
  app.openAPIRegistry.registerPath(certificateAttemptsRoute)
  app.openAPIRegistry.registerPath(renewalWindowsRoute)
}

const signedHeaders = z.object({
  'x-node-id': z.string().max(64).openapi({ description: 'The calling node' }),
  'x-agent-timestamp': z.string().max(15).openapi({ description: 'Milliseconds since the epoch' }),
  'x-agent-nonce': z
    .string()
    .min(16)
    .max(64)
    .openapi({ description: 'Random, base64url; the panel accepts each nonce once' }),
  'x-agent-signature': z.string().max(80).openapi({
    description:
      '`sha256=` and the hex HMAC-SHA256, keyed by the agent secret, of the lines `hosting-panel-agent-v2`, `agent-to-panel`, the method, the path, the timestamp, the nonce and the raw body',
  }),
})

const SIGNED =
  'Signed with the node’s agent secret (contract v2). The body is read up to 64 KiB (413 beyond, before anything else); an unsigned, stale (more than 5 minutes), wrongly signed or replayed call, or an unknown node, is 401 — an unknown node and a bad signature get the same answer.'

const requestIdHeader = z.object({
  'x-request-id': z.string().openapi({ description: 'The panel’s own id for this request' }),
})

const certificatesRoute = createRoute({
  method: 'post',
  path: CERTIFICATES_PATH,
  operationId: 'agent.certificates',
  tags: ['agent'],
  summary: 'A node reports the certificates it holds',
  description: `Only hostnames the reporting node routes now are kept, each for the registration (custom hostname or domain) that holds the hostname; the newest observation per registration and node wins, with observedAt counted at most up to the time the panel received it. ${SIGNED}`,
  request: {
    headers: signedHeaders,
    body: { content: { 'application/json': { schema: CertificateReportSchema } }, required: true },
  },
  responses: {
    200: {
      description: 'How many observations were kept and how many ignored',
      headers: requestIdHeader,
      content: {
        'application/json': {
          schema: z
            .object({ accepted: z.number().int(), ignored: z.number().int() })
            .openapi('CertificateReportAnswer'),
        },
      },
    },
    ...problemResponses([
      'validation_failed',
      'invalid_json',
      'unauthenticated',
      'payload_too_large',
      'internal',
    ]),
  },
})

const edgeStateRoute = createRoute({
  method: 'get',
  path: EDGE_STATE_PATH,
  operationId: 'agent.edgeState',
  tags: ['agent'],
  summary: 'A node asks for its current desired edge state',
  description: `The state the next push would carry (the node’s desired configVersion and every live route), or null while the node has none; an agent asks at start, so a node that missed pushes catches up by itself. ${SIGNED}`,
  request: { headers: signedHeaders },
  responses: {
    200: {
      description: 'The node’s current desired edge state',
      headers: requestIdHeader,
      content: { 'application/json': { schema: EdgeStateAnswerSchema.openapi('AgentEdgeStateAnswer') } },
    },
    ...problemResponses(['unauthenticated', 'payload_too_large', 'internal']),
  },
})

const edgeStatePartsRoute = createRoute({
  method: 'post',
  path: EDGE_STATE_PARTS_PATH,
  operationId: 'agent.edgeStateParts',
  tags: ['agent'],
  summary: 'A node reads its current desired edge state a page at a time',
  description: `For an agent (0.4.0 and later) catching up with a state too large for one body: up to 10,000 vhosts in hostname order after \`cursor\` (null: the first page, which also carries the forwards), the desired configVersion they were read at and the cursor of the next page (null: the last). A page with another configVersion than the first means the state changed meanwhile: the agent starts over. configVersion 0 with nothing: the node has no state yet. ${SIGNED}`,
  request: {
    headers: signedHeaders,
    body: {
      content: {
        'application/json': { schema: EdgeStatePageRequestSchema.openapi('AgentEdgeStatePageRequest') },
      },
      required: true,
    },
  },
  responses: {
    200: {
      description: 'One page of the node’s current desired edge state',
      headers: requestIdHeader,
      content: { 'application/json': { schema: EdgeStatePageSchema.openapi('AgentEdgeStatePage') } },
    },
    ...problemResponses([
      'validation_failed',
      'invalid_json',
      'unauthenticated',
      'payload_too_large',
      'internal',
    ]),
  },
})

const checkResultsRoute = createRoute({
  method: 'post',
  path: CHECK_RESULTS_PATH,
  operationId: 'agent.checkResults',
  tags: ['agent'],
  summary: 'A node posts the result of a probe check it ran',
  description: `The verdict of one check the panel asked the node to run (\`POST /v2/checks/run\`), named by the probe, the time it was scheduled for and the location (the node’s own id). A node posting for another node, or for a probe that does not check from it, is 403; a result no check waits for any more (its round was judged: too late, or sent twice) is 409. ${SIGNED}`,
  request: {
    headers: signedHeaders,
    body: {
      content: { 'application/json': { schema: CheckResultReportSchema.openapi('NodeCheckResult') } },
      required: true,
    },
  },
  responses: {
    200: {
      description: 'The result was recorded for its check',
      headers: requestIdHeader,
      content: {
        'application/json': { schema: CheckResultRecordedSchema.openapi('NodeCheckResultRecorded') },
      },
    },
    ...problemResponses([
      'validation_failed',
      'invalid_json',
      'unauthenticated',
      'forbidden',
      'conflict',
      'payload_too_large',
      'internal',
    ]),
  },
})

const certificateAttemptsRoute = createRoute({
  method: 'post',
  path: CERTIFICATE_ATTEMPTS_CALLBACK,
  operationId: 'agent.certificateAttempts',
  tags: ['agent'],
  summary: 'A node reports the newest certificate issuance outcome per hostname, in the CA’s words',
  description: `From agent 0.5.0, which reads Caddy’s own issuance log: per hostname the newest outcome (obtained, or failed with the ACME problem and its kind), when Caddy tries again where it said so, and for a rate limit when the CA says it lifts. Only hostnames the reporting node routes now are kept, per registration; the newest \`at\` wins (counted at most up to receipt), so a redelivery or a late older outcome changes nothing, and an obtained outcome clears the error. ${SIGNED}`,
  request: {
    headers: signedHeaders,
    body: {
      content: {
        'application/json': { schema: CertificateAttemptReportSchema.openapi('CertificateAttemptReport') },
      },
      required: true,
    },
  },
  responses: {
    200: {
      description: 'How many outcomes were kept and how many ignored',
      headers: requestIdHeader,
      content: {
        'application/json': {
          schema: z
            .object({ accepted: z.number().int(), ignored: z.number().int() })
            .openapi('CertificateAttemptReportAnswer'),
        },
      },
    },
    ...problemResponses([
      'validation_failed',
      'invalid_json',
      'unauthenticated',
      'payload_too_large',
      'internal',
    ]),
  },
})

const renewalWindowsRoute = createRoute({
  method: 'post',
  path: RENEWAL_WINDOWS_CALLBACK,
  operationId: 'agent.renewalWindows',
  tags: ['agent'],
  summary: 'A node reports the CA’s suggested renewal window per certificate it serves (ACME ARI)',
  description: `From agent 0.5.1, which asks the CA’s renewalInfo (RFC 9773) when its directory publishes one, no sooner than the CA’s Retry-After: per hostname the window of the certificate (serial) it serves, with the CA’s explanation URL when given. Only hostnames the reporting node routes now are kept, on that node’s observation of the same serial (a window for a certificate since replaced is ignored; a new certificate starts without one); a redelivery changes nothing. ${SIGNED}`,
  request: {
    headers: signedHeaders,
    body: {
      content: { 'application/json': { schema: RenewalWindowReportSchema.openapi('RenewalWindowReport') } },
      required: true,
    },
  },
  responses: {
    200: {
      description: 'How many windows were kept and how many ignored',
      headers: requestIdHeader,
      content: {
        'application/json': {
          schema: z
            .object({ accepted: z.number().int(), ignored: z.number().int() })
            .openapi('RenewalWindowReportAnswer'),
        },
      },
    },
    ...problemResponses([
      'validation_failed',
      'invalid_json',
      'unauthenticated',
      'payload_too_large',
      'internal',
    ]),
  },
})
