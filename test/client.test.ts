import { SELF } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { createClient, PanelError } from '../src/client'
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
})
