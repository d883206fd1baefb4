import { env } from 'cloudflare:workers'
import { beforeAll, describe, expect, it } from 'vitest'
import { type Caller, type CallResult, call, ok, send } from './helpers/http'
import { adminSession, tokenFor } from './helpers/principals'

let admin: Caller
let token: Caller

beforeAll(async () => {
  admin = await adminSession()
  token = await tokenFor(admin, ['fleet:view', 'fleet:manage'])
})

async function counts() {
  const row = await env.DB.prepare(
    'SELECT (SELECT count(*) FROM nodes) AS nodes, (SELECT count(*) FROM audit_log) AS audit',
  ).first<{
    nodes: number
    audit: number
  }>()
  return row
}

const validNode = { name: 'n', agentUrl: 'https://agent.test', agentSecret: 'agent-secret-0123456789' }
const rawPost = (path: string, body: BodyInit, contentType?: string) =>
  send(path, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token.token}`,
      ...(contentType ? { 'content-type': contentType } : {}),
    },
    body,
  })

const badInputs: {
  name: string
  body: BodyInit
  contentType?: string
  status: number
  code: string
  path?: string
}[] = [
  {
    name: 'malformed JSON',
    body: '{"name": ',
    contentType: 'application/json',
    status: 400,
    code: 'invalid_json',
  },
  {
    name: 'a text/plain body',
    body: JSON.stringify(validNode),
    contentType: 'text/plain',
    status: 415,
    code: 'unsupported_media_type',
  },
  ...[
    'application/vnd.api+json',
    'application/problem+json',
    'application/json-patch+json',
    'application/json; charset=utf-16',
    'application/json; charset=latin1',
    'application/jsonp',
  ].map((contentType) => ({
    name: `a ${contentType} body`,
    body: JSON.stringify(validNode),
    contentType,
    status: 415,
    code: 'unsupported_media_type',
  })),
  {
    name: 'a body without a content type',
    body: JSON.stringify(validNode),
    status: 415,
    code: 'unsupported_media_type',
  },
  {
    name: 'a body over 64 KiB',
    body: JSON.stringify({ ...validNode, name: 'x'.repeat(70_000) }),
    contentType: 'application/json',
    status: 413,
    code: 'payload_too_large',
  },
  {
    name: 'an unknown field',
    body: JSON.stringify({ ...validNode, nmae: 'typo' }),
    contentType: 'application/json',
    status: 400,
    code: 'validation_failed',
    path: 'nmae',
  },
  {
    name: 'a field of the wrong type',
    body: JSON.stringify({ ...validNode, name: 42 }),
    contentType: 'application/json',
    status: 400,
    code: 'validation_failed',
    path: 'name',
  },
  {
    name: 'a missing required field',
    body: JSON.stringify({ name: 'n', agentUrl: 'https://agent.test' }),
    contentType: 'application/json',
    status: 400,
    code: 'validation_failed',
    path: 'agentSecret',
  },
  {
    name: 'a JSON array',
    body: '[]',
    contentType: 'application/json',
    status: 400,
    code: 'validation_failed',
  },
]

describe('bad input', () => {
  for (const transport of ['/api/rpc/nodes.create', '/api/v1/nodes/create']) {
    it.each(badInputs)(`${transport}: $name should answer $status and write nothing`, async (c) => {
      const before = await counts()
      const res = (await rawPost(transport, c.body, c.contentType)) as CallResult<{
        code: string
        status: number
        issues?: { path: string }[]
      }>
      expect(res.status, res.text).toBe(c.status)
      expect(res.headers.get('content-type')).toBe('application/problem+json')
      expect(res.body.code).toBe(c.code)
      expect(res.body.status).toBe(c.status)
      if (c.path) expect(res.body.issues?.map((i) => i.path)).toEqual([c.path])
      expect(await counts()).toEqual(before)
    })
  }
})

describe('content types', () => {
  it.each([
    'application/json',
    'application/json; charset=utf-8',
    'Application/JSON; Charset=UTF-8',
    'application/json;charset="utf-8"',
  ])('should accept %s', async (contentType) => {
    const res = await rawPost('/api/rpc/nodes.list', '{}', contentType)
    expect(res.status, res.text).toBe(200)
  })
})

describe('transports', () => {
  it('should answer 404 procedure_not_found for an unknown procedure on both transports', async () => {
    for (const path of ['/api/rpc/nodes.explode', '/api/v1/nodes/explode']) {
      const res = await rawPost(path, '{}', 'application/json')
      expect(res.status, res.text).toBe(404)
      expect((res.body as { code: string }).code).toBe('procedure_not_found')
    }
  })

  it('should give the same status and body through RPC and REST', async () => {
    const created = await ok<{ id: string }>('nodes.create', { ...validNode, name: 'parity' }, token)
    const calls: [string, unknown][] = [
      ['nodes.list', {}],
      ['nodes.get', { id: created.id }],
      ['nodes.get', { id: 'missing' }],
      ['nodes.create', { ...validNode, name: 'parity' }],
      ['nodes.create', { name: '' }],
      ['auth.me', {}],
      ['users.list', {}],
    ]
    for (const [name, input] of calls) {
      const rpc = await call(name, input, token, 'rpc')
      const rest = await call(name, input, token, 'rest')
      const strip = (r: CallResult) => ({ ...(r.body as object), requestId: undefined })
      expect(rest.status, `${name}: ${rest.text}`).toBe(rpc.status)
      expect(strip(rest), name).toEqual(strip(rpc))
    }
  })

  it('should put x-request-id on every response and no-store on authenticated ones', async () => {
    const authed = await call('nodes.list', {}, token)
    expect(authed.headers.get('x-request-id')).toMatch(/\S+/)
    expect(authed.headers.get('cache-control')).toBe('no-store')
    const anonymous = await send('/api/nowhere')
    expect(anonymous.status).toBe(404)
    expect(anonymous.headers.get('x-request-id')).toMatch(/\S+/)
  })

  it('should never show internals in a 5xx', async () => {
    // A row the output schema cannot represent makes the handler's output check fail.
    await env.DB.prepare(
      "INSERT INTO users (id, email, password_hash, role, created_at, updated_at) VALUES ('broken', 'broken@panel.test', 'x', 'superuser', 0, 0)",
    ).run()
    const res = await call<{ code: string; detail: string; requestId: string }>('users.list', {}, admin)
    expect(res.status, res.text).toBe(500)
    expect(res.body.code).toBe('internal')
    expect(res.body.requestId).toBe(res.headers.get('x-request-id'))
    expect(res.text).not.toMatch(/superuser|zod|stack|at \w+ \(/i)
    await env.DB.prepare("DELETE FROM users WHERE id = 'broken'").run()
  })
})
