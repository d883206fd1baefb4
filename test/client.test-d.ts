import { describe, expectTypeOf, it } from 'vitest'
import { type ClientOf, createClient } from '../src/client'
import type { Router } from '../src/rpc/registry'

const client = createClient({ baseUrl: 'https://panel.test' })

describe('client types', () => {
  it('should infer inputs and outputs from the registry', () => {
    expectTypeOf(client).toEqualTypeOf<ClientOf<Router>>()
    expectTypeOf(client.nodes.create)
      .parameter(0)
      .toMatchTypeOf<{ name: string; agentUrl: string; agentSecret: string }>()
    expectTypeOf(client.nodes.create).returns.resolves.toMatchTypeOf<{ id: string; hasAgentSecret: true }>()
    expectTypeOf(client.nodes.list).returns.resolves.toBeArray()
    expectTypeOf(client.sites.create).returns.resolves.toHaveProperty('instanceId')
  })

  it('should allow omitting the input only when nothing in it is required', () => {
    expectTypeOf(client.auth.me).toBeCallableWith()
    expectTypeOf(client.instances.list).toBeCallableWith()
    // @ts-expect-error nodes.get needs an id
    client.nodes.get()
    // @ts-expect-error no such procedure
    client.nodes.explode
    // @ts-expect-error role must be admin or operator
    client.users.create({ email: 'a@b.c', password: 'x'.repeat(12), role: 'root' })
  })
})
