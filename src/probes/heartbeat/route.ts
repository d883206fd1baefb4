import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi'
import type { Context } from 'hono'
import type { AppEnv } from '../../env'
import { problemResponses } from '../../rpc/routes'
import type { PingSignal } from '../monitor/api'
import { ledgerFor } from './ledger-api'
import { parseHeartbeatToken } from './token'

/** Where every heartbeat URL starts; what follows is the token, the probe's credential. */
export const HEARTBEAT_PATH = '/api/heartbeat/'

/** The part of a ping's body that is kept; the rest is dropped, never refused. */
export const PING_BODY_LIMIT = 10_000

const PING_HEADERS = { 'access-control-allow-origin': '*', 'cache-control': 'no-store' } as const

// Healthchecks' suffixes: `/start`, `/fail`, or an exit status 0..255 (0 is success).
const EXIT_STATUS = /^(0|[1-9][0-9]{0,2})$/

function parseSignal(segment: string | undefined): { signal: PingSignal; exitStatus: number | null } | null {
  if (segment === undefined) return { signal: 'success', exitStatus: null }
  if (segment === 'start' || segment === 'fail') return { signal: segment, exitStatus: null }
  if (!EXIT_STATUS.test(segment) || Number(segment) > 255) return null
  const exitStatus = Number(segment)
  return { signal: exitStatus === 0 ? 'success' : 'fail', exitStatus }
}

/** The body's first PING_BODY_LIMIT bytes as text (a character cut in two becomes U+FFFD). */
async function readCapped(request: Request): Promise<string> {
  if (!request.body) return ''
  const reader = request.body.getReader()
  const buffer = new Uint8Array(PING_BODY_LIMIT)
  let size = 0
  while (size < PING_BODY_LIMIT) {
    const { done, value } = await reader.read()
    if (done) break
    const take = Math.min(value.byteLength, PING_BODY_LIMIT - size)
    buffer.set(value.subarray(0, take), size)
    size += take
  }
  if (size === PING_BODY_LIMIT) await reader.cancel()
  return new TextDecoder().decode(buffer.subarray(0, size))
}

// No D1 and no schema work: the token's regex addresses the probe's ledger shard, which checks the secret and
// records a plain ping of an up probe; the probe's monitor records everything else. Every refusal past the
// token's shape (unknown id, wrong secret, paused, archived) is the shard's one `unknown` path, and a monitor is
// woken only for an id the shard holds with the right secret.
async function receivePing(c: Context<AppEnv>): Promise<Response> {
  const token = parseHeartbeatToken(c.req.param('token') ?? '')
  const signal = parseSignal(c.req.param('signal'))
  // Refusals are the app's own not-found answer, so a token is indistinguishable from any unknown path.
  if (!token || !signal) return c.notFound()
  const body = c.req.method === 'POST' ? await readCapped(c.req.raw) : ''
  const at = Date.now()
  const { probeId, secret } = token
  const verdict = await ledgerFor(c.env, probeId).ping(
    probeId,
    secret,
    signal.signal,
    signal.exitStatus,
    body,
    at,
  )
  const recorded =
    verdict === 'recorded' ||
    (verdict === 'forward' &&
      (await c.env.PROBE_MONITOR.getByName(probeId).ping({ secret, ...signal, body, at })))
  if (!recorded) return c.notFound()
  return c.text('OK', 200, PING_HEADERS)
}

/** Mounts the public heartbeat ping (`GET|POST /api/heartbeat/<token>[/start|/fail|/<exit status>]`). */
export function mountHeartbeat(app: OpenAPIHono<AppEnv>): void {
  for (const path of [`${HEARTBEAT_PATH}:token`, `${HEARTBEAT_PATH}:token/:signal`]) {
    app.get(path, receivePing)
    app.post(path, receivePing)
  }
  for (const route of pingRoutes) app.openAPIRegistry.registerPath(route)
}

const TokenSchema = z
  .string()
  .max(128)
  .openapi({
    param: { name: 'token', in: 'path' },
    description: 'The heartbeat token shown when the probe was created: `hb_<probe id>_<secret>`',
    example: 'hb_0f8fad5b-d9cb-469f-a165-70867728950e_3q2-7wVhN0a8y0S2cVYxJ1bXq4G5nq0Fq5rX1Y2v3Zk',
  })

const SignalSchema = z
  .string()
  .max(5)
  .regex(/^(start|fail|0|[1-9][0-9]{0,2})$/)
  .openapi({
    param: { name: 'signal', in: 'path' },
    description:
      '`start` (a run began: no state change, the next ping reports its duration), `fail` (a failed run), or the ' +
      'exit status 0..255 of the run (0 is success, anything else a failure). Another value is 404.',
  })

const PING_DESCRIPTION =
  'Records a ping of a heartbeat probe; the token in the path is the credential, no other authentication. The ' +
  'answer is `200 OK` only after the probe\u2019s monitor stored the ping durably. A success is `up` and moves the ' +
  'deadline to now + interval + grace; the probe is `down` when the deadline passes without a ping (stamped at ' +
  'the deadline). An unknown, paused or archived token answers the same 404, which names neither the token nor ' +
  'the path. ' +
  `A POST body of any type is optional; its first ${PING_BODY_LIMIT} bytes are kept as the last ping\u2019s body ` +
  '(the rest is dropped, never refused).'

const pingAnswers = {
  200: {
    description: 'The ping was recorded',
    headers: z.object({
      'x-request-id': z.string().openapi({ description: 'The panel\u2019s own id for this request' }),
      'access-control-allow-origin': z.string().openapi({ description: '`*`: pings may come from any page' }),
      'cache-control': z.string().openapi({ description: '`no-store`' }),
    }),
    content: { 'text/plain': { schema: z.string().openapi({ example: 'OK' }) } },
  },
  ...problemResponses(['not_found', 'internal']),
}

const pingBody = {
  required: false,
  description: `Optional diagnostic output (a log tail); the first ${PING_BODY_LIMIT} bytes are kept`,
  content: { 'text/plain': { schema: z.string() } },
}

const pingRoutes = (['get', 'post'] as const).flatMap((method) => {
  const suffix = method === 'post' ? 'Post' : ''
  const body = method === 'post' ? { body: pingBody } : {}
  return [
    createRoute({
      method,
      path: '/api/heartbeat/{token}',
      operationId: `heartbeat.ping${suffix}`,
      tags: ['probes'],
      summary: 'Ping a heartbeat probe (success)',
      description: PING_DESCRIPTION,
      security: [],
      request: { params: z.object({ token: TokenSchema }), ...body },
      responses: pingAnswers,
    }),
    createRoute({
      method,
      path: '/api/heartbeat/{token}/{signal}',
      operationId: `heartbeat.signal${suffix}`,
      tags: ['probes'],
      summary: 'Ping a heartbeat probe with a signal: start, fail or an exit status',
      description: PING_DESCRIPTION,
      security: [],
      request: { params: z.object({ token: TokenSchema, signal: SignalSchema }), ...body },
      responses: pingAnswers,
    }),
  ]
})
