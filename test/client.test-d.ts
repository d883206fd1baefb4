import { describe, expectTypeOf, it } from 'vitest'
import { type Client, createClient, type ErrorCodeOf, isPanelError, PanelError } from '../src/client'
import type { ErrorCode } from '../src/rpc/errors'

const client = createClient({ baseUrl: 'https://panel.test' })

/** What every procedure can answer besides its own codes, as the client types it. */
type Common =
  | 'validation_failed'
  | 'invalid_json'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'internal'
  | 'unauthenticated'
  | 'forbidden'
  | 'procedure_not_found'
  | 'unknown'

describe('client types', () => {
  it('should infer inputs and outputs from the registry', () => {
    expectTypeOf(client).toEqualTypeOf<Client>()
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

  it('should take extra headers as a plain record', () => {
    expectTypeOf(createClient).toBeCallableWith({ baseUrl: '/', headers: { origin: 'https://panel.test' } })
    // @ts-expect-error header values are strings
    createClient({ baseUrl: '/', headers: { 'x-retries': 3 } })
  })

  it('should type PanelError codes as the server table plus unknown, and requestId as always present', () => {
    expectTypeOf<PanelError['problem']['code']>().toEqualTypeOf<ErrorCode | 'unknown'>()
    expectTypeOf<PanelError['problem']['requestId']>().toEqualTypeOf<string>()
  })

  it('should narrow a caught error to the codes of the procedure that threw it', () => {
    expectTypeOf<ErrorCodeOf<typeof client.nodes.remove>>().toEqualTypeOf<Common | 'not_found' | 'conflict'>()
    expectTypeOf<ErrorCodeOf<typeof client.auth.login>>().toEqualTypeOf<Common | 'rate_limited'>()
    expectTypeOf<ErrorCodeOf<typeof client.nodes.list>>().toEqualTypeOf<Common>()
    const caught: unknown = new Error('x')
    if (isPanelError(caught, client.nodes.remove)) {
      expectTypeOf(caught.problem.code).toEqualTypeOf<Common | 'not_found' | 'conflict'>()
      // @ts-expect-error nodes.remove never answers collision
      caught.problem.code === 'collision'
    }
    if (caught instanceof PanelError) expectTypeOf(caught.problem.code).toEqualTypeOf<ErrorCode | 'unknown'>()
    // Without a procedure: any PanelError, with the whole table.
    if (isPanelError(caught)) expectTypeOf(caught.problem.code).toEqualTypeOf<ErrorCode | 'unknown'>()
  })

  it('should type probe config per probe type, so a typo or a wrong value does not compile', () => {
    const http = { name: 'shop', type: 'http', targetKind: 'external', target: 'https://shop.test/' } as const
    const tcp = { name: 'db', type: 'tcp', targetKind: 'external', target: 'db.test:5432' } as const
    expectTypeOf(client.probes.create).toBeCallableWith({ ...http, config: { intervalSeconds: 30 } })
    expectTypeOf(client.probes.create).toBeCallableWith({
      name: 'backup',
      type: 'heartbeat',
      targetKind: 'external',
      target: 'nightly backup',
      config: { graceSeconds: 600 },
    })
    expectTypeOf(client.probes.create).toBeCallableWith({
      name: 'backup',
      type: 'heartbeat',
      targetKind: 'external',
      target: 'nightly backup',
      config: { schedule: '0 3 * * *', timezone: 'Europe/Berlin', graceSeconds: 600 },
    })
    expectTypeOf(client.probes.update).toBeCallableWith({
      id: 'p',
      config: { schedule: '*/15 * * * *', timezone: null, intervalSeconds: null },
    })
    // @ts-expect-error a schedule is a cron expression string
    client.probes.create({ ...http, type: 'heartbeat', config: { schedule: 3 } })
    // @ts-expect-error schedule is a heartbeat key, not an http one
    client.probes.create({ ...http, config: { schedule: '0 3 * * *' } })
    // @ts-expect-error a typo in a config key
    client.probes.create({ ...http, config: { intervalSecond: 30 } })
    // @ts-expect-error intervalSeconds is a number
    client.probes.create({ ...http, config: { intervalSeconds: 'x' } })
    // @ts-expect-error method is an http key, not a tcp one
    client.probes.create({ ...tcp, config: { method: 'GET' } })
    // @ts-expect-error graceSeconds is a heartbeat key
    client.probes.create({ ...http, config: { graceSeconds: 60 } })
    // @ts-expect-error a typo in a notifyConfig key
    client.probes.create({ ...http, notifyConfig: { cooldown: 60 } })
    expectTypeOf(client.probes.update).toBeCallableWith({ id: 'p', config: { keyword: null, slowMs: 900 } })
    // @ts-expect-error a typo in a patch key
    client.probes.update({ id: 'p', config: { intervalSecond: 30 } })
    // @ts-expect-error a patch value has its key's type
    client.probes.update({ id: 'p', config: { intervalSeconds: 'x' } })
    // @ts-expect-error a typo in a notifyConfig patch key
    client.probes.update({ id: 'p', notifyConfig: { maxPerHours: 3 } })
    // @ts-expect-error update takes no type: a probe keeps its type
    client.probes.update({ id: 'p', type: 'tcp' })
  })
})
