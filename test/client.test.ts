import { SELF } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { createClient, isPanelError, PanelError } from '../src/client'
import { COMMON_ERROR_CODES } from '../src/client/common-codes'
import { procedures } from '../src/rpc/registry'
import { procedureErrors } from '../src/rpc/routes'
import { ORIGIN } from './helpers/http'
import { adminSession, tokenFor } from './helpers/principals'

describe('createClient', () => {
  it('should call procedures by dotted name over RPC and throw PanelError with the problem', async () => {
    const { token } = await tokenFor(await adminSession(), ['fleet:view', 'fleet:manage'])
    const client = createClient({
      baseUrl: `${ORIGIN}/`,
      token,
      fetch: (input, init) => SELF.fetch(input, init),
    })
    const node = await client.nodes.create({
      name: 'typed',
      agentUrl: 'https://agent.test',
      agentSecret: 'agent-secret-0123456789',
    })
    expect(node.hasAgentSecret).toBe(true)
    const nodes = await client.nodes.list()
    expect(nodes.map((n) => n.id)).toEqual([node.id])
    const error = await client.nodes.get({ id: 'missing' }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(PanelError)
    expect((error as PanelError).status).toBe(404)
    expect((error as PanelError).problem.code).toBe('not_found')
  })

  it('should send the headers option on every call, beneath its own content type and token', async () => {
    const { cookie } = await adminSession()
    const seen: Record<string, string>[] = []
    const client = createClient({
      baseUrl: ORIGIN,
      headers: { cookie: cookie ?? '', origin: ORIGIN, 'content-type': 'text/plain', 'x-trace': 'trace-1' },
      fetch: (input, init) => {
        seen.push({ ...init.headers })
        return SELF.fetch(input, init)
      },
    })
    // A cookie-authenticated change passes the Origin check only because the option sent the Origin.
    const node = await client.nodes.create({
      name: 'by-cookie',
      agentUrl: 'https://agent.test',
      agentSecret: 'agent-secret-0123456789',
    })
    expect(node.hasAgentSecret).toBe(true)
    await client.nodes.list()
    expect(seen).toHaveLength(2)
    for (const headers of seen) {
      expect(headers).toMatchObject({
        'content-type': 'application/json',
        origin: ORIGIN,
        'x-trace': 'trace-1',
      })
    }
    const withToken = createClient({
      baseUrl: ORIGIN,
      token: 'pat_ours',
      headers: { Authorization: 'Bearer theirs' },
      fetch: async (_input, init) => {
        seen.push({ ...init.headers })
        return new Response('{}')
      },
    })
    await withToken.auth.me()
    expect(seen.at(-1)).toEqual({ 'content-type': 'application/json', authorization: 'Bearer pat_ours' })
  })

  it('should tell which procedure a PanelError came from, and wrap an answer that is not problem+json', async () => {
    const { token } = await tokenFor(await adminSession(), ['fleet:view'])
    const client = createClient({ baseUrl: ORIGIN, token, fetch: (input, init) => SELF.fetch(input, init) })
    const error = await client.nodes.get({ id: 'missing' }).catch((e: unknown) => e)
    expect(isPanelError(error, client.nodes.get)).toBe(true)
    expect(isPanelError(error, client.nodes.remove)).toBe(false)
    expect(isPanelError(new Error('not_found'), client.nodes.get)).toBe(false)
    if (!isPanelError(error, client.nodes.get)) throw error
    expect(error.procedure).toBe('nodes.get')
    expect(error.problem.requestId).toMatch(/\S/)

    const behindProxy = createClient({
      baseUrl: ORIGIN,
      fetch: async () =>
        new Response('<h1>502 Bad Gateway</h1>', {
          status: 502,
          statusText: 'Bad Gateway',
          headers: { 'content-type': 'text/html', 'x-request-id': 'edge-1' },
        }),
    })
    const proxied = await behindProxy.nodes.list().catch((e: unknown) => e)
    expect(proxied).toBeInstanceOf(PanelError)
    expect((proxied as PanelError).problem).toEqual({
      type: 'about:blank',
      title: 'Bad Gateway',
      status: 502,
      detail: '<h1>502 Bad Gateway</h1>',
      code: 'unknown',
      requestId: 'edge-1',
    })
  })
})

describe('client error codes', () => {
  it('should type every code a procedure can answer: the common ones plus those it declares', () => {
    const common = new Set<string>(COMMON_ERROR_CODES)
    for (const [name, proc] of procedures) {
      const typed = new Set<string>([...common, ...(proc.errors ?? [])])
      expect(
        procedureErrors(proc).filter((code) => !typed.has(code)),
        name,
      ).toEqual([])
    }
  })
})
