import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi'
import type { Context } from 'hono'
import { d1Session } from '../../db/session'
import type { AppEnv } from '../../env'
import { IdSchema, MAX_ID_LENGTH } from '../../lib/schemas'
import { invalid, validationFailed } from '../../rpc/errors'
import { guard } from '../../rpc/guard'
import { problemResponses } from '../../rpc/routes'
import { availabilityCsv, CSV_COLUMNS } from './csv'
import { availability } from './procedure'
import { AvailabilityQuerySchema } from './schemas'
import { dayFigures, readWindow } from './window'

const CSV_TYPE = 'text/csv; charset=utf-8; header=present'

const csvRoute = createRoute({
  method: 'get',
  path: '/api/v1/probes/{id}/availability.csv',
  operationId: 'probes.availabilityCsv',
  tags: ['probes'],
  summary:
    'A probe’s availability per UTC day as CSV: the figures of probes.availability for each day’s part of the window',
  description: `Permission: \`probes:view\`. RFC 4180 text with a header row (\`${CSV_COLUMNS.join(',')}\`) and one record per UTC day the window touches, oldest first, lines ended by CRLF. \`from\`/\`to\` are the day's part of the window (ISO 8601); the other columns are probes.availability's figures over it. The days' downtime, incidents, maintenance and checks add up to the window's; its longest incident is the largest day's (an incident counts on the day its downtime begins, with its whole length).`,
  security: [{ bearerAuth: [] }, { sessionCookie: [] }],
  request: {
    params: z.object({ id: IdSchema.openapi({ param: { name: 'id', in: 'path' } }) }),
    query: AvailabilityQuerySchema,
  },
  responses: {
    200: {
      description: 'One record per UTC day',
      headers: z.object({ 'content-disposition': z.string() }),
      content: { 'text/csv': { schema: z.string() } },
    },
    ...problemResponses([
      'validation_failed',
      'unauthenticated',
      'forbidden',
      'not_found',
      'out_of_range',
      'internal',
    ]),
  },
})

async function answerCsv(c: Context<AppEnv>): Promise<Response> {
  const id = c.req.param('id') ?? ''
  if (!IdSchema.safeParse(id).success) throw invalid('id', `must be 1 to ${MAX_ID_LENGTH} characters`)
  const query = AvailabilityQuerySchema.safeParse(c.req.query())
  if (!query.success) throw validationFailed(query.error)
  const window = { from: Date.parse(query.data.from), to: Date.parse(query.data.to) }
  const history = await readWindow(c.get('d1'), id, window, Date.now())
  return c.body(availabilityCsv(dayFigures(history)), 200, {
    'content-type': CSV_TYPE,
    'content-disposition': `attachment; filename="probe-availability-${query.data.from.slice(0, 10)}.csv"`,
  })
}

/** Mounts `GET /api/v1/probes/{id}/availability.csv`, guarded like probes.availability. */
export function mountAvailabilityCsv(app: OpenAPIHono<AppEnv>): void {
  app.get('/api/v1/probes/:id/availability.csv', d1Session('query'), guard(availability, false), answerCsv)
  app.openAPIRegistry.registerPath(csvRoute)
}
