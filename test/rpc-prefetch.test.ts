import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { Env } from '../src/env'
import worker from '../src/index'
import { siteWithToken } from './custom-hostnames/fixture'
import { captureJobs } from './dns-servers/run-job'
import { FakeDoh } from './fakes/doh'
import { type Caller, call, ORIGIN, ok } from './helpers/http'
import { adminSession, tokenFor } from './helpers/principals'
import { type CountedAnswer, countTrips } from './helpers/round-trips'

// domains.attach and customHostnames.register read what they decide from beside the caller's authentication (their
// prefetch). Those reads reach the handler only once the caller passed every check, and the batch still decides
// every race: what changed between the reads and the commit is answered as before.

const workerEnv = env as unknown as Env

let admin: Caller

beforeAll(async () => {
  admin = await adminSession()
})

beforeEach(() => {
  new FakeDoh().install()
})

const hostname = () => `shop.${crypto.randomUUID().slice(0, 8)}-customer.com`

function headersFor(caller: Caller): Record<string, string> {
  return caller.token ? { authorization: `Bearer ${caller.token}` } : {}
}

async function counts(table: string, where: string, value: string): Promise<number> {
  const row = await workerEnv.DB.prepare(`select count(*) as n from ${table} where ${where} = ?`)
    .bind(value)
    .first<{ n: number }>()
  return row?.n ?? 0
}

/**
 * Calls a procedure on the Worker with `rival` run right before the call's second D1 batch: its commit, once its
 * reads went out beside the authentication. The rival runs on the real bindings, as a concurrent request would.
 */
async function racedBeforeCommit(
  name: string,
  input: unknown,
  caller: Caller,
  rival: () => Promise<unknown>,
): Promise<{ status: number; body: { code?: string; detail?: string } }> {
  let batches = 0
  const withRival: D1Database = {
    ...workerEnv.DB,
    withSession(constraint?: string) {
      const session = workerEnv.DB.withSession(constraint)
      return {
        prepare: (query: string) => session.prepare(query),
        getBookmark: () => session.getBookmark(),
        async batch(statements: D1PreparedStatement[]) {
          if (++batches === 2) await rival()
          return session.batch(statements)
        },
      } as D1DatabaseSession
    },
  } as D1Database
  const ctx = createExecutionContext()
  const response = await worker.fetch(
    new Request(`${ORIGIN}/api/rpc/${name}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headersFor(caller) },
      body: JSON.stringify(input),
    }),
    { ...workerEnv, DB: withRival },
    ctx,
  )
  await waitOnExecutionContext(ctx)
  expect(batches).toBe(2)
  return { status: response.status, body: await response.json() }
}

describe('reads beside the authentication reach only an authorised caller', () => {
  it('should answer a site token naming another site 403 alike whether that site exists or not, writing nothing', async () => {
    const [mine, theirs] = await Promise.all([siteWithToken(admin), siteWithToken(admin)])
    const name = hostname()
    const existing = await call(
      'customHostnames.register',
      { siteId: theirs.siteId, hostname: name },
      mine.app,
    )
    const unknown = await call(
      'customHostnames.register',
      { siteId: crypto.randomUUID(), hostname: name },
      mine.app,
    )
    expect(existing.status, existing.text).toBe(403)
    expect(unknown.status, unknown.text).toBe(403)
    expect({ ...(existing.body as object), requestId: null }).toEqual({
      ...(unknown.body as object),
      requestId: null,
    })
    expect(await counts('hostname_claims', 'hostname', name)).toBe(0)
    expect(await counts('audit_log', "json_extract(detail, '$.hostname')", name)).toBe(0)
  })

  it('should answer a token without the permission 403 and one that does not check out 401, authenticating before validating', async () => {
    const site = await siteWithToken(admin)
    const viewer = await tokenFor(admin, ['custom-hostnames:view', 'domains:view'])
    const input = { siteId: site.siteId, hostname: hostname() }
    expect((await call('customHostnames.register', input, viewer)).status).toBe(403)
    expect((await call('domains.attach', { ...input, driver: 'manual' }, viewer)).status).toBe(403)
    expect((await call('customHostnames.register', input, { token: 'spat_not-a-token' })).status).toBe(401)
    // The authentication still comes before the input's validation: a bad input from nobody is 401, not 400.
    expect((await call('customHostnames.register', { siteId: 7 }, {})).status).toBe(401)
    const invalid = await call('customHostnames.register', { siteId: site.siteId }, site.app)
    expect(invalid.status, invalid.text).toBe(400)
    expect(invalid.text).toContain('hostname')
    expect(await counts('hostname_claims', 'hostname', input.hostname)).toBe(0)
  })

  it('should send no read at all for a caller presenting no credential', async () => {
    const site = await siteWithToken(admin)
    const answer = await countTrips('/api/rpc/customHostnames.register', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ siteId: site.siteId, hostname: hostname() }),
    })
    expect(answer.status).toBe(401)
    expect(answer.trips.d1).toBe(0)
  })
})

describe('reads beside the authentication, whatever the body', () => {
  it('should read a body streamed without a length beside the authentication too', async () => {
    const site = await siteWithToken(admin)
    const text = JSON.stringify({ siteId: site.siteId, hostname: hostname() })
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        const bytes = new TextEncoder().encode(text)
        controller.enqueue(bytes.slice(0, 10))
        controller.enqueue(bytes.slice(10))
        controller.close()
      },
    })
    const answer: CountedAnswer = await countTrips('/api/rpc/customHostnames.register', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headersFor(site.app) },
      body,
      duplex: 'half',
    } as RequestInit)
    expect(answer.status, answer.text).toBe(200)
    expect(answer.trips.d1).toBe(2)
  })

  it('should answer a body over the limit 413 once the caller is authenticated, reading nothing for it', async () => {
    const site = await siteWithToken(admin)
    const input = { siteId: site.siteId, hostname: hostname(), padding: 'x'.repeat(70 * 1024) }
    const answer = await countTrips('/api/rpc/customHostnames.register', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headersFor(site.app) },
      body: JSON.stringify(input),
    })
    expect(answer.status, answer.text).toBe(413)
    expect(answer.trips.d1).toBe(1)
  })
})

describe('the batch decides what changed after the reads', () => {
  it('should answer register 409 when another site claimed the hostname between its reads and its batch', async () => {
    const [mine, theirs] = await Promise.all([siteWithToken(admin), siteWithToken(admin)])
    const name = hostname()
    const answer = await racedBeforeCommit(
      'customHostnames.register',
      { siteId: mine.siteId, hostname: name },
      mine.app,
      () => ok('customHostnames.register', { siteId: theirs.siteId, hostname: name }, theirs.app),
    )
    expect(answer.status).toBe(409)
    expect(answer.body.code).toBe('collision')
    const owner = await workerEnv.DB.prepare('select site_id from hostname_claims where hostname = ?')
      .bind(name)
      .first<{ site_id: string }>()
    expect(owner?.site_id).toBe(theirs.siteId)
    expect(await counts('routes', 'site_id', mine.siteId)).toBe(0)
    const audited = await workerEnv.DB.prepare(
      "select count(*) as n from audit_log where action = 'custom-hostname.register' and json_extract(detail, '$.siteId') = ?",
    )
      .bind(mine.siteId)
      .first<{ n: number }>()
    expect(audited?.n).toBe(0)
  })

  it('should answer attach 409 when the hostname was registered elsewhere between its reads and its batch', async () => {
    const [mine, theirs] = await Promise.all([siteWithToken(admin), siteWithToken(admin)])
    const name = `www.${crypto.randomUUID().slice(0, 8)}.com`
    const answer = await racedBeforeCommit(
      'domains.attach',
      { siteId: mine.siteId, hostname: name, driver: 'manual' },
      await tokenFor(admin, ['domains:manage']),
      () => ok('customHostnames.register', { siteId: theirs.siteId, hostname: name }, theirs.app),
    )
    expect(answer.status).toBe(409)
    expect(answer.body.code).toBe('collision')
    expect(await counts('domains', 'hostname', name)).toBe(0)
  })

  it('should queue the reconcile of the node version its own batch reached, with no read after the commit', async () => {
    const site = await siteWithToken(admin)
    const sent = captureJobs()
    const first = await countTrips('/api/rpc/customHostnames.register', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headersFor(site.app) },
      body: JSON.stringify({ siteId: site.siteId, hostname: hostname() }),
    })
    expect(first.status, first.text).toBe(200)
    expect(first.trips.outsideSession).toBe(0)
    await ok('customHostnames.register', { siteId: site.siteId, hostname: hostname() }, site.app)
    const reconciles = sent.flatMap(({ body }) => (body.type === 'route.reconcile' ? [body] : []))
    expect(reconciles).toEqual([
      { type: 'route.reconcile', nodeId: site.nodeId, version: 1 },
      { type: 'route.reconcile', nodeId: site.nodeId, version: 2 },
    ])
  })
})
