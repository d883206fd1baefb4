import { env } from 'cloudflare:workers'
import { describe, expect, inject, it } from 'vitest'
import type { Env } from '../../src/env'
import { runCheck } from '../../src/probes/checks/run-check'
import { type TcpConfig, TcpConfigSchema } from '../../src/probes/config'
import { FakeDoh } from '../fakes/doh'

// tcp checks connect() to loopback servers the global setup started (test/probes/servers/global-setup.ts).
// Loopback is a development target; production refuses it, and any name that resolves inward, before connecting.

const servers = inject('probeServers')
const production = env as unknown as Env
const development: Env = { ...production, ENVIRONMENT: 'development' }

function check(runEnv: Env, target: string, config: Partial<TcpConfig> = {}) {
  const probe = {
    id: 'probe-tcp',
    type: 'tcp' as const,
    targetKind: 'external' as const,
    targetId: null,
    target,
    config: TcpConfigSchema.parse(config),
  }
  return runCheck(runEnv, probe, 'probe-tcp:1')
}

describe('tcp check', () => {
  it('should be up when the port accepts the connection', async () => {
    const result = await check(development, `127.0.0.1:${servers.banner}`)
    expect(result).toMatchObject({ checkId: 'probe-tcp:1', outcome: 'up', detail: 'connected' })
    expect(result.latencyMs).toBeGreaterThanOrEqual(0)
    expect(await check(development, `localhost:${servers.banner}`)).toMatchObject({ outcome: 'up' })
  })

  it('should be down when the connection is refused', async () => {
    const result = await check(development, `127.0.0.1:${servers.refused}`)
    expect(result.outcome).toBe('down')
    expect(result.detail).toMatch(/^could not connect: .+/)
    expect(result.latencyMs).toBeNull()
  })

  it('should be down at its own deadline when the SYN is dropped', async () => {
    const started = Date.now()
    const result = await check(development, `127.0.0.1:${servers.blackhole}`, { timeoutMs: 500 })
    expect(result).toMatchObject({
      outcome: 'down',
      detail: 'connect timed out after 500 ms',
      latencyMs: null,
    })
    expect(Date.now() - started).toBeGreaterThanOrEqual(500)
    expect(Date.now() - started).toBeLessThan(3000)
  })

  it('should refuse a loopback target in production without connecting', async () => {
    expect(await check(production, `127.0.0.1:${servers.banner}`)).toMatchObject({
      outcome: 'down',
      detail: 'refused by the outbound rule: must not point at a loopback or private address in production',
      latencyMs: null,
    })
  })

  it('should refuse a name that resolves to a private address in production', async () => {
    new FakeDoh().install().set('db.example.test', 'A', ['10.0.0.5']).set('db.example.test', 'AAAA', [])
    expect(await check(production, 'db.example.test:5432')).toMatchObject({
      outcome: 'down',
      detail:
        'refused by the outbound rule: db.example.test resolves to 10.0.0.5, which is not a public address',
    })
  })
})
