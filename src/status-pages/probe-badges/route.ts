import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi'
import type { Context } from 'hono'
import { db } from '../../db/client'
import type { AppEnv } from '../../env'
import { IdSchema } from '../../lib/schemas'
import { AppError } from '../../rpc/errors'
import { problemResponse } from '../../rpc/problem-response'
import { ifNoneMatchHits } from '../../rpc/rendered'
import { problemResponses } from '../../rpc/routes'
import { renderFlatBadge, SHIELDS_COLOURS } from '../badge'
import { cachedCopy } from '../edge-copies'
import { CLIENT_SECONDS, EDGE_SECONDS } from '../freshness'
import { SlugSchema } from '../schemas'
import { BADGE_KINDS, type Badge, type BadgeKind } from './kinds'
import { probeBadge } from './read'

const FORMATS = { svg: 'image/svg+xml; charset=utf-8', json: 'application/json; charset=utf-8' } as const
type Format = keyof typeof FORMATS
const FILE = new RegExp(`^(${BADGE_KINDS.join('|')})\\.(svg|json)$`)
// Probe ids are UUIDs: any other spelling (capitals, escapes) is another address, and not found.
const PROBE_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

function render(format: Format, badge: Badge): string {
  if (format === 'json') return JSON.stringify({ schemaVersion: 1, ...badge })
  return renderFlatBadge(badge.label, badge.message, SHIELDS_COLOURS[badge.color])
}

interface Address {
  slug: string
  probeId: string
  kind: BadgeKind
  format: Format
}

/** The badge rendered from D1 (the nearest replica: the answer is a cached copy anyway); null when none. */
async function build(c: Context<AppEnv>, address: Address, now: number): Promise<string | null> {
  const d1 = c.env.DB.withSession('first-unconstrained')
  const badge = await probeBadge(d1, db(d1), address.slug, address.probeId, address.kind, now)
  return badge && render(address.format, badge)
}

/** The address the path spells, when it is canonical; null otherwise. */
function addressOf(c: Context<AppEnv>): Address | null {
  const slug = c.req.param('slug') ?? ''
  const probeId = c.req.param('probeId') ?? ''
  const file = FILE.exec(c.req.param('file') ?? '')
  if (!file || !SlugSchema.safeParse(slug).success || !PROBE_ID.test(probeId)) return null
  const address = { slug, probeId, kind: file[1] as BadgeKind, format: file[2] as Format }
  return new URL(c.req.url).pathname === pathOf(address) ? address : null
}

// Not the app's notFound: outside /api that answers the web interface's index.html.
const notFound = (c: Context<AppEnv>) =>
  problemResponse(c, new AppError('not_found', 'no badge of a public status page answers at this address'))

const pathOf = (a: Address) => `/status/${a.slug}/badges/${a.probeId}/${a.kind}.${a.format}`

async function answer(c: Context<AppEnv>): Promise<Response> {
  const now = Date.now()
  const address = addressOf(c)
  if (!address) return notFound(c)
  const key = new Request(`${new URL(c.req.url).origin}${pathOf(address)}`)
  const fresh = await cachedCopy(c, key, FORMATS[address.format], now, () => build(c, address, now))
  if (!fresh) return notFound(c)
  const headers = {
    etag: fresh.etag,
    'cache-control': `public, max-age=${CLIENT_SECONDS}`,
    'access-control-allow-origin': '*',
    'access-control-expose-headers': 'ETag',
  }
  if (ifNoneMatchHits(c.req.header('if-none-match'), fresh.etag)) return c.body(null, 304, headers)
  return c.body(fresh.body, 200, { ...headers, 'content-type': FORMATS[address.format] })
}

const FILES = BADGE_KINDS.flatMap((kind) => [`${kind}.svg`, `${kind}.json`])

const cachedHeaders = z.object({
  etag: z.string().openapi({ description: 'A strong validator of the body; send it back as If-None-Match' }),
  'cache-control': z.string().openapi({ description: `\`public, max-age=${CLIENT_SECONDS}\`` }),
  'access-control-allow-origin': z.string().openapi({ description: '`*`: readable from any page' }),
})

const ShieldsEndpointSchema = z
  .object({
    schemaVersion: z.literal(1),
    label: z.string(),
    message: z.string(),
    color: z.enum(Object.keys(SHIELDS_COLOURS) as [keyof typeof SHIELDS_COLOURS]),
  })
  .openapi('ShieldsEndpointBadge')

const badgeRoute = createRoute({
  method: 'get',
  path: '/status/{slug}/badges/{probeId}/{file}',
  operationId: 'statusPages.probeBadge',
  tags: ['statusPages'],
  summary: 'A badge of one probe a public status page lists: SVG, or shields.io endpoint JSON',
  description:
    '`file` is `<kind>.svg` or `<kind>.json`. Kinds: `status` (the state the page shows), `uptime-24h|7d|30d|90d` ' +
    '(probes.availability’s uptimeRatio over the last 24 hours to 90 days, maintenance excluded), `response` ' +
    '(the mean latency of the last 24 hours’ checks) and `cert-expiry` (whole days left on the certificate: ' +
    'a domain’s for a probe of a domain, a cert probe’s last check otherwise; other probes have no such badge). ' +
    'The label is the page’s display name of the probe; the JSON is what https://shields.io/badges/endpoint-badge ' +
    `reads. Cached like the page: built once per edge location and served for ${EDGE_SECONDS} s, then cacheable ` +
    `${CLIENT_SECONDS} s more. A page that is missing or private, a probe it does not list or that is archived, an ` +
    'unknown kind, and any other spelling of the address answer 404.',
  security: [],
  request: {
    params: z.object({
      slug: z
        .string()
        .max(64)
        .openapi({ param: { name: 'slug', in: 'path' }, example: 'acme' }),
      probeId: IdSchema.openapi({ param: { name: 'probeId', in: 'path' } }),
      file: z.enum(FILES as [string, ...string[]]).openapi({ param: { name: 'file', in: 'path' } }),
    }),
    headers: z.object({ 'if-none-match': z.string().optional() }),
  },
  responses: {
    200: {
      description: 'The badge',
      headers: cachedHeaders,
      content: {
        'image/svg+xml': { schema: z.string() },
        'application/json': { schema: ShieldsEndpointSchema },
      },
    },
    304: { description: 'The If-None-Match names the current ETag', headers: cachedHeaders },
    ...problemResponses(['not_found', 'internal']),
  },
})

/** Mounts the per-probe badges of public status pages: `/status/<slug>/badges/<probeId>/<kind>.(svg|json)`. */
export function mountProbeBadges(app: OpenAPIHono<AppEnv>): void {
  app.get('/status/:slug/badges/:probeId/:file', answer)
  app.openAPIRegistry.registerPath(badgeRoute)
}
