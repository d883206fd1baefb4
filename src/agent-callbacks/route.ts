import type { OpenAPIHono } from '@hono/zod-openapi'
import { createRoute, z } from '@hono/zod-openapi'
import { CertificateReportSchema } from '../agent-contract/v1'
import type { AppEnv } from '../env'
import { problemResponses } from '../rpc/routes'
import { CERTIFICATES_PATH, receiveCertificates } from './certificates'

/**
 * Mounts the node → panel callbacks. They are not procedures (a node signs with its agent secret; no principal),
 * so they are documented here, beside the handler, rather than generated from the registry.
 */
export function mountAgentCallbacks(app: OpenAPIHono<AppEnv>): void {
  app.post(CERTIFICATES_PATH, receiveCertificates)
  app.openAPIRegistry.registerPath(certificatesRoute)
}

const certificatesRoute = createRoute({
  method: 'post',
  path: CERTIFICATES_PATH,
  operationId: 'agent.certificates',
  tags: ['agent'],
  summary: 'A node reports the certificates it holds (signed with its agent secret)',
  description:
    'Only hostnames the reporting node routes now are kept, each for the registration (custom hostname or domain) that holds the hostname; the newest observation per registration and node wins, with observedAt counted at most up to the time the panel received it. Unsigned, stale (more than 5 minutes) or wrongly signed reports, and unknown nodes, are 401.',
  request: {
    headers: z.object({
      'x-node-id': z.string().max(64).openapi({ description: 'The reporting node' }),
      'x-service-timestamp': z.string().max(20).openapi({ description: 'Milliseconds since the epoch' }),
      'x-service-signature': z.string().max(80).openapi({
        description:
          '`sha256=` and the hex HMAC-SHA256 of `<timestamp>.<raw body>` keyed by the agent secret',
      }),
    }),
    body: { content: { 'application/json': { schema: CertificateReportSchema } }, required: true },
  },
  responses: {
    200: {
      description: 'How many observations were kept and how many ignored',
      headers: z.object({
        'x-request-id': z.string().openapi({ description: 'The panel’s own id for this request' }),
      }),
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
