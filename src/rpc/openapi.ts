import type { OpenAPIHono } from '@hono/zod-openapi'
import { SESSION_COOKIE } from '../auth/session-cookie'
import type { AppEnv } from '../env'
import { sha256Hex } from '../lib/hash'
import type { AnyProcedure } from './define'
import { type JsonNode, repairSchema } from './openapi-schemas'
import { procedures, type Router } from './registry'
import { ifNoneMatchHits } from './rendered'
import { RPC_TAG } from './routes'
import { EVENT_STREAM } from './streamed'

export const OPENAPI_PATH = '/api/v1/openapi.json'

/** One line per area of the registry; a new area without one does not compile. */
const AREA_TAGS: Readonly<Record<keyof Router, string>> = {
  auth: 'Sign-in, sign-out and who the caller is',
  users: 'Panel users and their roles',
  tokens: 'API tokens for machines',
  nodes: 'Servers of the fleet',
  instances: 'Instances running on nodes',
  sites: 'Sites served by instances, and their site-bound tokens',
  audit: 'The audit log of every change',
  meta: 'Public, cacheable, CORS-open reads: the changelog feed and the running version',
  changelog: 'Releases, their translations, webhooks and the upstream mirror',
  accounts: 'DNS provider, git and certificate issuer accounts, and their defaults',
  dnsServers: 'Self-hosted PowerDNS nameservers, their zones and records',
  customHostnames:
    "The SaaS seam: a site token brings its customers' hostnames online; the site's zone allow-list",
  routes:
    "Ways into a site: http virtual hosts and raw TCP/UDP forwards, pushed to each node's agent as one versioned edge state",
  domains:
    'Hostnames attached to sites: DNS written and verified, routed, certified and smoke-tested by queued steps',
  probes:
    'Monitoring: http, tcp, dns, cert and heartbeat probes, their state, history, live watch stream and notifications',
  statusPages:
    'Public status pages: groups of probes under display names, served at /status/<slug>, as JSON and as a badge',
  maintenance:
    'Maintenance windows: one-off or weekly in a time zone, over probes and status pages; notifications withheld while open, status pages show maintenance',
  overview: 'The counts behind the overview page, and what is down or failing now',
  jobs: 'Queue jobs that failed: what they acted on, the last error, and a retry',
  notifications:
    'Notification channels (email, signed webhook, Slack, Discord, Telegram, ntfy, PagerDuty) probes alert through, and their delivery logs',
  settings: 'Installation-wide settings: who hears of operational problems, and the delivery log',
}

const TAGS = [
  ...Object.entries(AREA_TAGS).map(([name, description]) => ({ name, description })),
  { name: 'agent', description: 'Calls a node agent makes to the panel, signed with its agent secret' },
  {
    name: RPC_TAG,
    description:
      'The RPC transport the typed client uses: `POST /api/rpc/<dotted.name>` for every procedure, with the same JSON body, answers and errors as its REST operation.',
  },
]

type Operation = {
  'x-procedure'?: string
  parameters?: { in: string; name: string; schema?: JsonNode }[]
  requestBody?: { content?: Record<string, { schema?: JsonNode }> }
  responses?: Record<string, { content?: Record<string, { schema?: JsonNode }> }>
}
interface Document {
  paths?: Record<string, Record<string, Operation>>
  components?: { schemas?: Record<string, JsonNode> }
}

function repairOperation(op: Operation, proc: AnyProcedure, components: Record<string, JsonNode>): void {
  const body = op.requestBody?.content?.['application/json']
  if (body?.schema) body.schema = repairSchema(proc.input, body.schema, components)
  const shape = 'shape' in proc.input ? (proc.input.shape as Record<string, AnyProcedure['input']>) : {}
  for (const parameter of op.parameters ?? []) {
    const field = parameter.in === 'query' ? shape[parameter.name] : undefined
    if (field && parameter.schema) parameter.schema = repairSchema(field, parameter.schema, components)
  }
  const success = op.responses?.['200']?.content?.['application/json']
  if (success?.schema) success.schema = repairSchema(proc.output, success.schema, components)
  const stream = op.responses?.['200']?.content?.[EVENT_STREAM]
  if (stream?.schema) stream.schema = eventStreamSchema(stream.schema)
}

/**
 * A stream's body is text; the JSON of one event's `data` is its `contentSchema`. Tools that validate answers
 * (Prism) read the body as a string, which matches; a schema of the event itself would fail on every stream.
 */
function eventStreamSchema(event: JsonNode): JsonNode {
  return {
    type: 'string',
    contentMediaType: EVENT_STREAM,
    contentSchema: event,
    description:
      'Server-Sent Events (`id:`, `data:`, `retry:` and comment lines). The `data` of every event is one JSON value matching `contentSchema`.',
  }
}

/** Walks every operation's schemas beside the procedure's zod schemas and corrects what the generator got wrong. */
export function repairDocument(generated: object): void {
  // The generator's own types describe OpenAPI at large; these are the parts it fills in for our routes.
  const doc = generated as Document
  const components = doc.components?.schemas ?? {}
  for (const methods of Object.values(doc.paths ?? {})) {
    for (const op of Object.values(methods)) {
      const proc = procedures.get(op['x-procedure'] ?? '')
      if (proc) repairOperation(op, proc, components)
    }
  }
}

/**
 * The document holds no secrets, so any origin may read it (API tools, the reference UI served elsewhere); the
 * ETag lets them revalidate instead of downloading it again. It differs per origin (its `servers`) and release.
 */
const DOCUMENT_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'ETag',
  'cache-control': 'no-cache',
} as const

interface RenderedDocument {
  key: string
  json: string
  etag: string
}

/** Serves the OpenAPI 3.1 document generated from the routes registered on the app. */
export function mountOpenApi(app: OpenAPIHono<AppEnv>): void {
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    description: 'An API token (`pat_…`) or a site-bound token (`spat_…`).',
  })
  app.openAPIRegistry.registerComponent('securitySchemes', 'sessionCookie', {
    type: 'apiKey',
    in: 'cookie',
    name: SESSION_COOKIE,
    description: 'The session cookie set by auth.login. State-changing calls must carry the panel Origin.',
  })
  const render = (origin: string, version: string): object => {
    const doc = app.getOpenAPI31Document({
      openapi: '3.1.0',
      info: {
        title: 'Hosting Panel API',
        version,
        description:
          'Every procedure is served on two transports with the same JSON bodies and answers: REST (`POST /api/v1/<dotted/path>`, plus the dedicated GET routes) and RPC (`POST /api/rpc/<dotted.name>`, tag `rpc`). Errors are application/problem+json.',
      },
      servers: [{ url: origin }],
      tags: TAGS,
    })
    repairDocument(doc)
    return doc
  }
  // The last document rendered: an isolate almost always answers one origin and one release.
  let last: RenderedDocument | null = null
  app.get(OPENAPI_PATH, async (c) => {
    const origin = new URL(c.req.url).origin
    const key = `${origin} ${c.env.IMAGE_TAG}`
    let doc = last
    if (doc?.key !== key) {
      const json = JSON.stringify(render(origin, c.env.IMAGE_TAG))
      doc = { key, json, etag: `"${(await sha256Hex(json)).slice(0, 32)}"` }
      last = doc
    }
    const headers = { ...DOCUMENT_HEADERS, etag: doc.etag }
    if (ifNoneMatchHits(c.req.header('if-none-match'), doc.etag)) return c.body(null, 304, headers)
    return c.body(doc.json, 200, { ...headers, 'content-type': 'application/json' })
  })
  app.options(OPENAPI_PATH, (c) =>
    c.body(null, 204, {
      'access-control-allow-origin': '*',
      'access-control-allow-methods': 'GET, HEAD, OPTIONS',
      'access-control-allow-headers': 'If-None-Match',
      'access-control-max-age': '86400',
    }),
  )
}
