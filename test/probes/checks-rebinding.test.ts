import { env } from 'cloudflare:workers'
import { afterEach, describe, expect, inject, it, vi } from 'vitest'
import type { Env } from '../../src/env'
import { runCheck } from '../../src/probes/checks/run-check'
import { CertConfigSchema, TcpConfigSchema } from '../../src/probes/config'
import { DOH_ORIGIN } from '../fakes/doh'
import { dohAnswer, dohQuestion } from '../fakes/doh-wire'
import { fakeOrigin } from '../helpers/outbound'

// DNS rebinding: a name whose resolver answers a public address first and a private one after. Production's tcp
// and cert checks must connect to the address the outbound rule approved, not to the name (resolved again).
// connect() is wrapped: it records the hostname it was asked for and the bytes written, and reaches the
// loopback servers of the global setup in place of the network.

const servers = inject('probeServers')
const production = env as unknown as Env
const PUBLIC = '104.16.0.1'

const connects: { hostname: string; port: number }[] = []
const written: Uint8Array[] = []
let reach = { port: 0 }

vi.mock('cloudflare:sockets', async (original) => {
  const real = (await original()) as typeof import('cloudflare:sockets')
  return {
    connect(address: SocketAddress, options?: SocketOptions): Socket {
      connects.push({ hostname: address.hostname, port: address.port })
      const socket = real.connect({ hostname: '127.0.0.1', port: reach.port }, options)
      const tap = new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          written.push(chunk)
          controller.enqueue(chunk)
        },
      })
      tap.readable.pipeTo(socket.writable).catch(() => {})
      const tapped = {
        writable: tap.writable,
        readable: socket.readable,
        opened: socket.opened,
        closed: socket.closed,
        close: () => socket.close(),
      }
      return tapped as unknown as Socket
    },
  }
})

/** A resolver that answers `name`'s first A query with a public address and every later one with loopback. */
function rebindingResolver(name: string): { queries: number } {
  const seen = { queries: 0 }
  fakeOrigin(DOH_ORIGIN, (request) => {
    const question = dohQuestion(request)
    if (!question || question.name !== name) return new Response('Bad Request', { status: 400 })
    if (question.type !== 'A') return dohAnswer(question.name, question.type, 0, [])
    seen.queries += 1
    return dohAnswer(question.name, 'A', 0, [seen.queries === 1 ? PUBLIC : '127.0.0.1'])
  })
  return seen
}

afterEach(() => {
  connects.length = 0
  written.length = 0
})

describe('tcp and cert checks against DNS rebinding (production)', () => {
  it('should connect a tcp check to the approved public address, never to the name', async () => {
    const resolver = rebindingResolver('rebind.example.com')
    reach = { port: servers.banner }
    const probe = {
      id: 'probe-rebind-tcp',
      type: 'tcp' as const,
      targetKind: 'external' as const,
      targetId: null,
      target: 'rebind.example.com:5432',
      config: TcpConfigSchema.parse({}),
    }
    expect(await runCheck(production, probe, 'probe-rebind-tcp:1')).toMatchObject({
      outcome: 'up',
      detail: 'connected',
    })
    expect(connects).toEqual([{ hostname: PUBLIC, port: 5432 }])
    expect(resolver.queries).toBe(1)
  })

  it('should connect a cert check to the approved address and still name the host in the TLS handshake (SNI)', async () => {
    const resolver = rebindingResolver('rebind.example.com')
    reach = { port: servers.tls.valid.port }
    const probe = {
      id: 'probe-rebind-cert',
      type: 'cert' as const,
      targetKind: 'external' as const,
      targetId: null,
      target: 'rebind.example.com',
      config: CertConfigSchema.parse({}),
    }
    const result = await runCheck(production, probe, 'probe-rebind-cert:1')
    expect(result.detail).toMatch(/^certificate valid until /)
    expect(connects).toEqual([{ hostname: PUBLIC, port: 443 }])
    expect(resolver.queries).toBe(1)
    const hello = new TextDecoder('latin1').decode(written[0])
    expect(hello).toContain('rebind.example.com')
    expect(hello).not.toContain(PUBLIC)
  })
})
