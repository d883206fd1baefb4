import { env } from 'cloudflare:workers'
import { beforeAll, describe, expect, inject, it } from 'vitest'
import { db } from '../../src/db/client'
import { domains } from '../../src/db/schema/domains'
import type { Env } from '../../src/env'
import { runCheck } from '../../src/probes/checks/run-check'
import { type CertConfig, CertConfigSchema } from '../../src/probes/config'
import type { ProbeTargetKind } from '../../src/probes/monitor/api'
import { type Caller, ok } from '../helpers/http'
import { interceptOutbound, outboundRequests } from '../helpers/outbound'
import { adminSession } from '../helpers/principals'

// Two ways to a certificate's expiry: a domain's probe reads what the node agents reported on the domain row
// (no network); any other target is asked directly with a TLS 1.2-only ClientHello, whose answer carries the
// leaf certificate in the clear. The TLS servers run on loopback (test/probes/servers/global-setup.ts).

const servers = inject('probeServers')
const production = env as unknown as Env
const development: Env = { ...production, ENVIRONMENT: 'development' }
const DAY = 86_400_000
let admin: Caller
let siteId: string

function check(
  runEnv: Env,
  target: string,
  config: Partial<CertConfig> = {},
  kind: ProbeTargetKind = 'external',
  targetId: string | null = null,
) {
  const probe = {
    id: 'probe-cert',
    type: 'cert' as const,
    targetKind: kind,
    targetId,
    target,
    config: CertConfigSchema.parse(config),
  }
  return runCheck(runEnv, probe, 'probe-cert:1')
}

async function domainWith(
  certState: 'issued' | 'pending' | 'failed',
  certExpiresAt: Date | null,
): Promise<string> {
  const id = crypto.randomUUID()
  const now = new Date()
  await db(production.DB)
    .insert(domains)
    .values({
      id,
      siteId,
      hostname: `${id.slice(0, 8)}.shop.example.test`,
      driver: 'manual',
      dnsState: 'verified',
      issuer: 'letsencrypt',
      certState,
      certExpiresAt,
      proxied: false,
      verification: [],
      records: [],
      written: [],
      step: 'green',
      generation: 1,
      attempts: 0,
      stepStartedAt: now,
      createdAt: now,
      updatedAt: now,
    })
  return id
}

beforeAll(async () => {
  admin = await adminSession()
  const node = await ok<{ id: string }>(
    'nodes.create',
    {
      name: 'cert-edge',
      agentUrl: 'https://agent.example.test:8443',
      agentSecret: 'agent-secret-0123456789',
    },
    admin,
  )
  const instance = await ok<{ id: string }>(
    'instances.create',
    { nodeId: node.id, name: 'web', address: '10.0.0.5' },
    admin,
  )
  siteId = (
    await ok<{ id: string }>('sites.create', { instanceId: instance.id, name: 'shop', port: 3000 }, admin)
  ).id
})

describe('cert check of a domain (the nodes report the certificate)', () => {
  const run = (id: string, config: Partial<CertConfig> = {}) =>
    check(production, 'shop.example.test', config, 'domain', id)

  it('should judge the reported expiry without any network', async () => {
    interceptOutbound()
    const valid = await run(await domainWith('issued', new Date(Date.now() + 30 * DAY + 3_600_000)))
    expect(valid).toMatchObject({ checkId: 'probe-cert:1', outcome: 'up', latencyMs: null })
    expect(valid.detail).toMatch(/^certificate valid until \d{4}-\d\d-\d\d \(30 days left\)$/)
    expect(await run(await domainWith('issued', new Date(Date.now() + 3 * DAY + 3_600_000)))).toMatchObject({
      outcome: 'degraded',
      detail: 'certificate expires in 3 days (warn at 14)',
    })
    expect(
      await run(await domainWith('issued', new Date(Date.now() + 3 * DAY + 3_600_000)), { certWarnDays: 2 }),
    ).toMatchObject({ outcome: 'up' })
    const expired = await run(await domainWith('issued', new Date(Date.now() - 2 * DAY - 3_600_000)))
    expect(expired.outcome).toBe('down')
    expect(expired.detail).toMatch(/^certificate expired 2 days ago \(on \d{4}-\d\d-\d\d\)$/)
    expect(outboundRequests()).toHaveLength(0)
  })

  it('should be down, never green, when no expiry is known', async () => {
    expect(await run(await domainWith('pending', null))).toMatchObject({
      outcome: 'down',
      detail: 'no certificate reported for the domain yet (certificate pending)',
    })
    expect(await run(await domainWith('failed', null))).toMatchObject({
      outcome: 'down',
      detail: 'no certificate reported for the domain yet (certificate failed)',
    })
    expect(await run('no-such-domain')).toMatchObject({
      outcome: 'down',
      detail: 'the domain no longer exists',
    })
  })
})

describe('cert check of any other target (TLS 1.2 handshake)', () => {
  const tls = servers.tls

  it('should read a valid certificate', async () => {
    const result = await check(development, `127.0.0.1:${tls.valid.port}`)
    const days = Math.floor((Date.parse(tls.valid.notAfter) - Date.now()) / DAY)
    expect(result).toMatchObject({
      outcome: 'up',
      detail: `certificate valid until ${tls.valid.notAfter.slice(0, 10)} (${days} days left)`,
    })
    expect(result.latencyMs).toBeGreaterThanOrEqual(0)
    // With a host name, the ClientHello names it (SNI).
    expect(await check(development, `localhost:${tls.valid.port}`)).toMatchObject({ outcome: 'up' })
  })

  it('should be degraded near expiry and down once expired', async () => {
    expect(await check(development, `127.0.0.1:${tls.nearExpiry.port}`)).toMatchObject({
      outcome: 'degraded',
      detail: 'certificate expires in 3 days (warn at 14)',
    })
    expect(await check(development, `127.0.0.1:${tls.expired.port}`)).toMatchObject({
      outcome: 'down',
      detail: `certificate expired 2 days ago (on ${tls.expired.notAfter.slice(0, 10)})`,
    })
  })

  it('should be down when the expiry cannot be read', async () => {
    expect(await check(development, `127.0.0.1:${tls.tls13Only.port}`)).toMatchObject({
      outcome: 'down',
      detail:
        "could not read the certificate's expiry: the server refused TLS 1.2 (alert protocol_version); TLS 1.3-only servers cannot be read",
      latencyMs: null,
    })
    expect(await check(development, `127.0.0.1:${servers.banner}`)).toMatchObject({
      outcome: 'down',
      detail: "could not read the certificate's expiry: the server's answer is not TLS",
    })
  })

  it('should be down when it cannot connect, at its own deadline at the latest', async () => {
    const refused = await check(development, `127.0.0.1:${servers.refused}`)
    expect(refused.outcome).toBe('down')
    expect(refused.detail).toMatch(/^could not connect: .+/)
    const started = Date.now()
    expect(await check(development, `127.0.0.1:${servers.blackhole}`, { timeoutMs: 500 })).toMatchObject({
      outcome: 'down',
      detail: 'connect timed out after 500 ms',
    })
    expect(Date.now() - started).toBeLessThan(3000)
  })

  it('should refuse a loopback target in production', async () => {
    expect(await check(production, `127.0.0.1:${tls.valid.port}`)).toMatchObject({
      outcome: 'down',
      detail: 'refused by the outbound rule: must not point at a loopback or private address in production',
    })
  })
})

describe('runCheck', () => {
  it('should throw for a heartbeat, which is never checked', async () => {
    const probe = {
      id: 'probe-hb',
      type: 'heartbeat' as const,
      targetKind: 'external' as const,
      targetId: null,
      target: 'nightly backup',
      config: CertConfigSchema.parse({}),
    }
    await expect(runCheck(production, probe, 'probe-hb:1')).rejects.toThrow(/heartbeat/)
  })
})
