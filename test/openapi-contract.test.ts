import { beforeAll, describe, expect, it } from 'vitest'
import { assertContract, type Exchange } from './helpers/contract'
import { type Caller, call, ok, send } from './helpers/http'
import { adminSession } from './helpers/principals'

let admin: Caller

beforeAll(async () => {
  admin = await adminSession()
})

const NODE = { agentUrl: 'https://agent.panel.test', agentSecret: 'node-agent-secret-0123' }

function exchange(overrides: Partial<Exchange>): Exchange {
  return {
    method: 'POST',
    url: 'https://panel.test/api/v1/nodes/list',
    requestHeaders: new Headers({ 'content-type': 'application/json' }),
    requestBody: '{}',
    status: 200,
    responseHeaders: new Headers({ 'content-type': 'application/json', 'x-request-id': 'r' }),
    responseText: '[]',
    ...overrides,
  }
}

describe('the OpenAPI contract check', () => {
  it('should refuse an answer the document does not describe, naming the operation, status and pointer', async () => {
    await expect(assertContract(exchange({}))).resolves.toBeUndefined()
    await expect(assertContract(exchange({ responseText: '[{"id":1}]' }))).rejects.toThrow(
      /nodes\.list answered 200: .*#\/0/,
    )
    await expect(assertContract(exchange({ status: 418 }))).rejects.toThrow(/status 418 is not documented/)
    await expect(assertContract(exchange({ responseHeaders: new Headers() }))).rejects.toThrow(
      /header x-request-id is documented but missing/,
    )
  })

  it('should refuse an exchange where the document and the panel disagree on the request body', async () => {
    const problem = JSON.stringify({
      type: 'urn:hosting-panel:problem:validation_failed',
      title: 'The input is not valid',
      status: 400,
      detail: 'bogus: unknown field',
      code: 'validation_failed',
      requestId: 'r',
    })
    const accepted = exchange({
      requestBody: '{"bogus":1}',
      status: 400,
      responseHeaders: new Headers({ 'content-type': 'application/problem+json', 'x-request-id': 'r' }),
      responseText: problem,
    })
    await expect(assertContract(accepted)).resolves.toBeUndefined()
    const answeredOk = exchange({ requestBody: '{"bogus":1}' })
    await expect(assertContract(answeredOk)).rejects.toThrow(/the document refuses the request body/)
  })
})

describe('the OpenAPI document, as validators read it', () => {
  it('should accept the null an unresolved account answers', async () => {
    const node = await ok<{ id: string }>('nodes.create', { name: 'contract-node', ...NODE }, admin)
    // send() checks the answer against the document: `account` and `source` are null here.
    const resolved = await call('accounts.resolve', { kind: 'dns', nodeId: node.id }, admin)
    expect(resolved.body, resolved.text).toEqual({ account: null, source: null })
    const me = await call<{ user: unknown }>('auth.me', {}, admin)
    expect(me.status, me.text).toBe(200)
  })

  it('should refuse the node roles the panel refuses', async () => {
    for (const roles of [['host', 'nameserver'], [], ['host', 42]]) {
      const created = await call('nodes.create', { name: 'contract-roles', roles, ...NODE }, admin)
      expect(created.status, created.text).toBe(400)
    }
  })

  it('should answer every 401 with WWW-Authenticate: Bearer, as documented', async () => {
    for (const caller of [{}, { token: 'pat_not-a-token' }]) {
      const refused = await call('nodes.list', {}, caller, 'rest')
      expect(refused.status, refused.text).toBe(401)
      expect(refused.headers.get('www-authenticate')).toBe('Bearer')
    }
  })

  it('should document the RPC transport and the meta headers, and no body errors on GET', async () => {
    const doc = (await send('/api/v1/openapi.json')).body as {
      tags: { name: string; description: string }[]
      paths: Record<
        string,
        Record<
          string,
          { tags: string[]; parameters?: { name: string; in: string }[] } & {
            responses: Record<string, { headers?: Record<string, unknown> }>
          }
        >
      >
    }
    expect(doc.paths['/api/rpc/nodes.create']?.post?.tags).toEqual(['rpc'])
    const feed = doc.paths['/api/v1/meta/changelog']?.get
    expect(Object.keys(feed?.responses ?? {}).sort()).toEqual(['200', '304', '400', '500'])
    expect(feed?.parameters).toContainEqual(expect.objectContaining({ name: 'if-none-match', in: 'header' }))
    expect(Object.keys(feed?.responses['400']?.headers ?? {})).toEqual(
      expect.arrayContaining(['x-request-id', 'access-control-allow-origin']),
    )
    const login = doc.paths['/api/v1/auth/login']?.post
    expect(Object.keys(login?.responses['429']?.headers ?? {})).toContain('Retry-After')
    const defined = new Set(doc.tags.map((tag) => tag.name))
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const op of Object.values(methods)) {
        for (const tag of op.tags) expect(defined.has(tag), `${path} uses undefined tag ${tag}`).toBe(true)
      }
    }
  })
})
