import { createRoute, z } from '@hono/zod-openapi'
import { PROBE_STATES } from '../db/schema/probes'
import { problemResponses } from '../rpc/routes'
import { CLIENT_SECONDS, EDGE_SECONDS } from './freshness'
import { INCIDENT_HISTORY_DAYS, IncidentImpactSchema, IncidentStateSchema } from './incidents/schema'
import { BAR_DAYS, EVENT_COUNT } from './summary'

const StateSchema = z.enum(PROBE_STATES)
// Inline, not a named component: a nullable named component would come out as an allOf that cannot be null.
const MaintenanceSchema = z.object({
  title: z.string().describe('The window\u2019s title'),
  endsAt: z.string().describe('When its cover ends (adjoining windows count as one stretch)'),
})
const BasisPoints = z.number().int().min(0).max(10_000).nullable()

export const PublicStatusSchema = z
  .object({
    title: z.string(),
    description: z.string().nullable(),
    state: z
      .enum([...PROBE_STATES, 'maintenance'])
      .describe(
        'The page\u2019s state: down when a listed probe no maintenance window covers is down, else degraded when one is degraded or flapping, else maintenance when a window covers any listed probe, else up when any is up, else paused. `maintenance` is never a probe\u2019s own state',
      ),
    generatedAt: z.string().describe('When this answer was built'),
    activeMaintenance: z
      .array(MaintenanceSchema)
      .describe('The maintenance windows covering a listed probe now, the soonest to end first'),
    groups: z.array(
      z.object({
        name: z.string(),
        probes: z.array(
          z.object({
            name: z.string().describe('The display name the page gives the probe'),
            state: StateSchema,
            awaiting: z
              .enum(['check', 'ping'])
              .nullable()
              .describe(
                'Set while an enabled probe has never been checked: it waits for its first `check`, or a heartbeat for its first `ping` (its `state` is still `paused` meanwhile; the page reads "waiting for its first check"); null once it has a state of its own, or while it is stopped',
              ),
            since: z.string().nullable().describe('When the probe entered its state'),
            uptime: BasisPoints.describe(
              `(up + degraded) / checks over the ${BAR_DAYS} days; null without checks`,
            ),
            bars: z
              .array(z.object({ date: z.string(), upRatio: BasisPoints }))
              .describe(`The last ${BAR_DAYS} UTC days, oldest first; upRatio null for a day without checks`),
            maintenance: MaintenanceSchema.nullable().describe(
              'The maintenance window covering the probe now (the page shows it as under maintenance; `state` stays the probe\u2019s own); null when none does',
            ),
          }),
        ),
      }),
    ),
    events: z
      .array(
        z.object({
          at: z.string(),
          name: z.string(),
          state: StateSchema,
          previousState: StateSchema.nullable(),
        }),
      )
      .describe(`The ${EVENT_COUNT} latest state changes of the listed probes, newest first`),
    incidents: z
      .array(
        z.object({
          title: z.string(),
          impact: IncidentImpactSchema,
          state: IncidentStateSchema.describe('The newest update\u2019s state'),
          affects: z
            .array(z.string())
            .describe('The display names of the listed probes the incident concerns'),
          createdAt: z.string(),
          updatedAt: z.string(),
          resolvedAt: z.string().nullable().describe('null while open'),
          updates: z
            .array(z.object({ state: IncidentStateSchema, message: z.string(), at: z.string() }))
            .describe('Every update, newest first; a message is plain text and may hold line breaks'),
        }),
      )
      .describe(
        `The open incidents, then those resolved in the last ${INCIDENT_HISTORY_DAYS} days; each group newest first`,
      ),
  })
  .openapi('PublicStatus')

const SlugParam = z
  .string()
  .max(64)
  .openapi({ param: { name: 'slug', in: 'path' }, example: 'acme' })

const cachedHeaders = (cors: boolean) =>
  z.object({
    etag: z
      .string()
      .openapi({ description: 'A strong validator of the body; send it back as If-None-Match' }),
    'cache-control': z.string().openapi({ description: `\`public, max-age=${CLIENT_SECONDS}\`` }),
    ...(cors
      ? { 'access-control-allow-origin': z.string().openapi({ description: '`*`: readable from any page' }) }
      : {}),
  })

const CACHING =
  `Built once per edge location and served from the Cache API for ${EDGE_SECONDS} s, then cacheable ${CLIENT_SECONDS} s ` +
  `more: never more than ${EDGE_SECONDS + CLIENT_SECONDS} s behind. A page that does not exist or is not public ` +
  'answers 404, and so does a slug spelled other than as stored (percent-escaped, capitals): a page has one ' +
  'address, and one cached copy.'

// The page's own 404 is a page too: a person followed a link.
const HTML_NOT_FOUND = {
  headers: z.object({
    'x-request-id': z.string().openapi({ description: 'The panel\u2019s own id for this request' }),
  }),
  description:
    'No such public page (missing, private, or the slug spelled other than as stored): a plain HTML "Not found" page, the same for each',
  content: { 'text/html': { schema: z.string() } },
}

function publicRoute(path: string, operationId: string, summary: string, type: string, schema: z.ZodType) {
  const cors = type !== 'text/html'
  return createRoute({
    method: 'get',
    path,
    operationId,
    tags: ['statusPages'],
    summary,
    description: CACHING,
    security: [],
    request: {
      params: z.object({ slug: SlugParam }),
      headers: z.object({ 'if-none-match': z.string().optional() }),
    },
    responses: {
      200: { description: summary, headers: cachedHeaders(cors), content: { [type]: { schema } } },
      304: { description: 'The If-None-Match names the current ETag', headers: cachedHeaders(cors) },
      ...problemResponses(['not_found', 'internal']),
      ...(path.startsWith('/status/') ? { 404: HTML_NOT_FOUND } : {}),
    },
  })
}

/** The OpenAPI description of the public faces of a status page. */
export const publicStatusRoutes = [
  publicRoute(
    '/status/{slug}',
    'statusPages.publicPage',
    'A public status page as HTML (no script)',
    'text/html',
    z.string(),
  ),
  publicRoute(
    '/api/v1/status/{slug}',
    'statusPages.publicStatus',
    'A public status page as JSON',
    'application/json',
    PublicStatusSchema,
  ),
  publicRoute(
    '/api/v1/status/{slug}/badge.svg',
    'statusPages.publicBadge',
    'A shields-style badge of a public status page: its title and overall state',
    'image/svg+xml',
    z.string(),
  ),
  publicRoute(
    '/status/{slug}/feed.atom',
    'statusPages.publicFeedAtom',
    'A public status page\u2019s incidents (one entry per update) and maintenance windows as Atom 1.0',
    'application/atom+xml',
    z.string(),
  ),
  publicRoute(
    '/status/{slug}/feed.rss',
    'statusPages.publicFeedRss',
    'A public status page\u2019s incidents (one item per update) and maintenance windows as RSS 2.0',
    'application/rss+xml',
    z.string(),
  ),
]
