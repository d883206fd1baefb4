import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { PROBE_CONFIG_SCHEMAS } from '../../src/probes/config'
import { parseHeartbeatToken } from '../../src/probes/heartbeat/token'
import { type SiteFixture, siteWithToken } from '../custom-hostnames/fixture'
import { type Caller, call, ok } from '../helpers/http'
import { fakeOrigin } from '../helpers/outbound'
import { adminSession, operatorSession } from '../helpers/principals'
import {
  type CreatedProbe,
  createProbe,
  type Probe,
  type ProbeDetail,
  probeRecord,
  STATUS_ORIGIN,
  workerEnv,
} from './catalogue-fixture'

let admin: Caller
let site: SiteFixture

beforeAll(async () => {
  admin = await adminSession()
  site = await siteWithToken(admin)
})

beforeEach(() => {
  // A sub-minute probe's monitor checks at once, from its own alarm.
  fakeOrigin(STATUS_ORIGIN, () => new Response('ok'))
})

const get = (id: string) => ok<ProbeDetail>('probes.get', { id }, admin)
const list = (input: Record<string, unknown> = {}) => ok<Probe[]>('probes.list', input, admin)

async function auditActions(targetId: string): Promise<string[]> {
  const page = await ok<{ entries: { action: string }[] }>('audit.list', { targetId }, admin)
  return page.entries.map((entry) => entry.action).reverse()
}

function ping(id: string, token: string) {
  const parsed = parseHeartbeatToken(token)
  if (!parsed) throw new Error(`not a heartbeat token: ${token}`)
  return workerEnv.PROBE_MONITOR.getByName(id).ping({
    secret: parsed.secret,
    signal: 'success',
    exitStatus: null,
    body: '',
    at: Date.now(),
  })
}

describe('probes.create', () => {
  it('should start a probe paused, with every config key defaulted, scheduled for the scan, audited', async () => {
    const probe = await createProbe(admin, { config: { intervalSeconds: 120 } })
    expect(probe).toMatchObject({
      type: 'http',
      targetKind: 'external',
      targetId: null,
      target: `${STATUS_ORIGIN}/health`,
      state: 'paused',
      enabled: true,
      consecutiveFailures: 0,
      lastResult: null,
      lastCheckedAt: null,
      lastChangedAt: null,
      hasWebhookSecret: false,
      archivedAt: null,
      heartbeatToken: null,
      heartbeatUrl: null,
      config: { intervalSeconds: 120, timeoutMs: 10_000, failureThreshold: 3, method: 'GET' },
      notifyConfig: { emails: [], webhookUrl: null, cooldownSeconds: 300 },
    })
    const row = await probeRecord(probe.id)
    expect(row?.state).toBe('paused')
    expect(row?.nextCheckAt?.getTime()).toBeLessThanOrEqual(Date.now())
    expect(await auditActions(probe.id)).toEqual(['probe.create'])
  })

  it('should leave the scan out of probes it does not run: disabled, heartbeat, under a minute', async () => {
    const disabled = await createProbe(admin, { enabled: false })
    const fast = await createProbe(admin, { config: { intervalSeconds: 30 } })
    const heartbeat = await createProbe(admin, { type: 'heartbeat', target: 'nightly backup' })
    for (const probe of [disabled, fast, heartbeat]) {
      expect(probe.state).toBe('paused')
      expect((await probeRecord(probe.id))?.nextCheckAt).toBeNull()
    }
  })

  it('should show a heartbeat probe its token and URL once', async () => {
    const probe = await createProbe(admin, { type: 'heartbeat', target: 'nightly backup' })
    expect(probe.heartbeatToken).toMatch(new RegExp(`^hb_${probe.id}_[A-Za-z0-9_-]{43}$`))
    expect(probe.heartbeatUrl).toBe(`https://panel.test/api/heartbeat/${probe.heartbeatToken}`)
    const read = await call('probes.get', { id: probe.id }, admin)
    expect(read.text).not.toContain(probe.heartbeatToken)
    const row = await probeRecord(probe.id)
    expect(row?.heartbeatTokenHash).toMatch(/^[0-9a-f]{64}$/)
    expect(await ping(probe.id, probe.heartbeatToken ?? '')).toBe(true)
  })

  it("should read each type's config back with that type's keys only, every default filled", async () => {
    const targets = {
      http: `${STATUS_ORIGIN}/`,
      tcp: 'db.probes-example.com:5432',
      dns: 'probes-example.com',
      cert: 'probes-example.com',
      heartbeat: 'nightly backup',
    } as const
    for (const type of Object.keys(targets) as (keyof typeof targets)[]) {
      const probe = await createProbe(admin, { type, target: targets[type] })
      const expected = PROBE_CONFIG_SCHEMAS[type].parse({})
      expect(probe.config, type).toEqual(expected)
      expect((await ok<Probe>('probes.get', { id: probe.id }, admin)).config, type).toEqual(expected)
    }
  })

  it('should answer 400 naming the config or notifyConfig key, and write nothing', async () => {
    const before = (await list({ includeArchived: true })).length
    const cases: [Record<string, unknown>, string][] = [
      [{ config: { intervalSeconds: 5 } }, 'config.intervalSeconds'],
      [{ config: { bogus: 1 } }, 'config.bogus'],
      [{ config: { certWarnDays: 3 } }, 'config.certWarnDays'],
      [{ type: 'cert', target: 'shop.example.com', config: { certWarnDays: 0 } }, 'config.certWarnDays'],
      [{ type: 'heartbeat', target: 'job', config: { graceSeconds: -1 } }, 'config.graceSeconds'],
      [{ notifyConfig: { maxPerHour: 0 } }, 'notifyConfig.maxPerHour'],
      [{ notifyConfig: { emails: ['not an email'] } }, 'notifyConfig.emails.0'],
      [{ notifyConfig: { webhookUrl: 'https://127.0.0.1/hook' } }, 'notifyConfig.webhookUrl'],
      [{ target: 'https://10.0.0.1/' }, 'target'],
      [{ targetId: site.siteId }, 'targetId'],
      [{ targetKind: 'site' }, 'targetId'],
    ]
    for (const [fields, path] of cases) {
      const res = await call<{ code: string; issues: { path: string }[] }>(
        'probes.create',
        { name: 'bad', type: 'http', targetKind: 'external', target: `${STATUS_ORIGIN}/`, ...fields },
        admin,
      )
      expect(res.status, `${path}: ${res.text}`).toBe(400)
      expect(res.body.code).toBe('validation_failed')
      expect(res.body.issues.map((issue) => issue.path)).toContain(path)
    }
    expect((await list({ includeArchived: true })).length).toBe(before)
  })

  it('should check the target row: 404 for an unknown one, the probe listed under its target otherwise', async () => {
    for (const targetKind of ['node', 'instance', 'site', 'domain']) {
      const res = await call(
        'probes.create',
        {
          name: 'orphan',
          type: 'tcp',
          targetKind,
          targetId: crypto.randomUUID(),
          target: 'db.probes-example.com:5432',
        },
        admin,
      )
      expect(res.status, res.text).toBe(404)
    }
    const probe = await createProbe(admin, { targetKind: 'site', targetId: site.siteId })
    const ofSite = await list({ targetKind: 'site', targetId: site.siteId })
    expect(ofSite.map((p) => p.id)).toEqual([probe.id])
    const nodeProbe = await createProbe(admin, { targetKind: 'node', targetId: site.nodeId })
    expect((await list({ targetKind: 'node', targetId: site.nodeId })).map((p) => p.id)).toEqual([
      nodeProbe.id,
    ])
  })
})

describe('webhookSecret', () => {
  it('should refuse a webhook URL without a secret (alerts are always signed), on create and on update', async () => {
    const webhook = { webhookUrl: 'https://hooks.probes-example.com/in' }
    const unsigned = await call<{ issues: { path: string }[] }>(
      'probes.create',
      {
        name: 'unsigned',
        type: 'http',
        targetKind: 'external',
        target: `${STATUS_ORIGIN}/`,
        notifyConfig: webhook,
      },
      admin,
    )
    expect(unsigned.status).toBe(400)
    expect(unsigned.body.issues.map((issue) => issue.path)).toEqual(['notifyConfig.webhookUrl'])
    const signed = await createProbe(admin, {
      notifyConfig: webhook,
      webhookSecret: 'probe-webhook-secret-0123456789',
    })
    const clearing = await call('probes.update', { id: signed.id, webhookSecret: null }, admin)
    expect(clearing.status).toBe(400)
    expect((await probeRecord(signed.id))?.webhookSecret).not.toBeNull()
    const both = await ok<Probe>(
      'probes.update',
      { id: signed.id, webhookSecret: null, notifyConfig: { webhookUrl: null } },
      admin,
    )
    expect(both.hasWebhookSecret).toBe(false)
  })

  it('should be stored sealed, never returned, and kept, replaced or cleared by update', async () => {
    const secret = 'probe-webhook-secret-0123456789'
    const probe = await createProbe(admin, { webhookSecret: secret })
    expect(probe.hasWebhookSecret).toBe(true)
    expect((await probeRecord(probe.id))?.webhookSecret).toMatch(/^v1\./)
    const kept = await ok<Probe>('probes.update', { id: probe.id, name: 'renamed' }, admin)
    expect(kept).toMatchObject({ name: 'renamed', hasWebhookSecret: true })
    const sealed = (await probeRecord(probe.id))?.webhookSecret
    const cleared = await ok<Probe>('probes.update', { id: probe.id, webhookSecret: null }, admin)
    expect(cleared.hasWebhookSecret).toBe(false)
    expect((await probeRecord(probe.id))?.webhookSecret).toBeNull()
    const replaced = await ok<Probe>('probes.update', { id: probe.id, webhookSecret: `${secret}-new` }, admin)
    expect(replaced.hasWebhookSecret).toBe(true)
    const resealed = (await probeRecord(probe.id))?.webhookSecret
    expect(resealed).toMatch(/^v1\./)
    expect(resealed).not.toBe(sealed)
    for (const res of [
      await call('probes.get', { id: probe.id }, admin),
      await call('probes.list', {}, admin),
    ]) {
      expect(res.text).not.toContain(secret)
      expect(res.text).not.toContain('webhookSecret"')
    }
  })
})

describe('probes.update', () => {
  it('should lay config over the stored one and validate it whole; null takes the default', async () => {
    const probe = await createProbe(admin, { config: { intervalSeconds: 300, keyword: 'ok', slowMs: 900 } })
    const updated = await ok<Probe>(
      'probes.update',
      { id: probe.id, config: { failureThreshold: 5, keyword: null }, notifyConfig: { maxPerHour: 3 } },
      admin,
    )
    expect(updated.config).toMatchObject({ intervalSeconds: 300, failureThreshold: 5, slowMs: 900 })
    expect(updated.config).not.toHaveProperty('keyword')
    expect(updated.notifyConfig).toMatchObject({ maxPerHour: 3, cooldownSeconds: 300 })
    const bad = await call<{ issues: { path: string }[] }>(
      'probes.update',
      { id: probe.id, name: 'never', config: { timeoutMs: 1 } },
      admin,
    )
    expect(bad.status, bad.text).toBe(400)
    expect(bad.body.issues.map((issue) => issue.path)).toEqual(['config.timeoutMs'])
    const after = await get(probe.id)
    expect(after.name).toBe(probe.name)
    expect(after.config).toEqual(updated.config)
    expect(await auditActions(probe.id)).toEqual(['probe.create', 'probe.update'])
  })

  it('should refuse a config key of another type', async () => {
    const probe = await createProbe(admin, { type: 'tcp', target: 'db.probes-example.com:5432' })
    const res = await call<{ issues: { path: string }[] }>(
      'probes.update',
      { id: probe.id, config: { method: 'POST' } },
      admin,
    )
    expect(res.status, res.text).toBe(400)
    expect(res.body.issues.map((issue) => issue.path)).toEqual(['config.method'])
  })
})

describe('probes.setEnabled', () => {
  it('should pause a probe (paused, out of the scan) and resume it, audited probe.pause and probe.resume', async () => {
    const probe = await createProbe(admin)
    expect(await ok('probes.setEnabled', { id: probe.id, enabled: false }, admin)).toEqual({ enabled: false })
    expect(await get(probe.id)).toMatchObject({ enabled: false, state: 'paused' })
    expect((await probeRecord(probe.id))?.nextCheckAt).toBeNull()
    expect(await ok('probes.setEnabled', { id: probe.id, enabled: true }, admin)).toEqual({ enabled: true })
    expect((await get(probe.id)).enabled).toBe(true)
    expect((await probeRecord(probe.id))?.nextCheckAt).not.toBeNull()
    expect(await auditActions(probe.id)).toEqual(['probe.create', 'probe.pause', 'probe.resume'])
  })
})

describe('probes.archive', () => {
  it('should stop the probe, hide it from the list unless asked, keep its history, and answer the same twice', async () => {
    const probe = await createProbe(admin)
    expect(await ok('probes.archive', { id: probe.id }, admin)).toEqual({ archived: true })
    const archived = await get(probe.id)
    expect(archived).toMatchObject({ state: 'paused' })
    expect(archived.archivedAt).not.toBeNull()
    expect((await probeRecord(probe.id))?.nextCheckAt).toBeNull()
    expect((await list()).map((p) => p.id)).not.toContain(probe.id)
    expect((await list({ includeArchived: true })).map((p) => p.id)).toContain(probe.id)
    expect((await call('probes.history', { id: probe.id }, admin)).status).toBe(200)
    expect(await ok('probes.archive', { id: probe.id }, admin)).toEqual({ archived: true })
    expect((await get(probe.id)).archivedAt).toBe(archived.archivedAt)
    expect(await auditActions(probe.id)).toEqual(['probe.create', 'probe.archive', 'probe.archive'])
    for (const [name, input] of [
      ['probes.update', { id: probe.id, name: 'again' }],
      ['probes.setEnabled', { id: probe.id, enabled: true }],
    ] as const) {
      const res = await call(name, input, admin)
      expect(res.status, `${name}: ${res.text}`).toBe(409)
    }
  })

  it('should stop an archived heartbeat answering pings', async () => {
    const probe = await createProbe(admin, { type: 'heartbeat', target: 'archived job' })
    await ok('probes.archive', { id: probe.id }, admin)
    expect(await ping(probe.id, probe.heartbeatToken ?? '')).toBe(false)
  })
})

describe('probes.rotateToken', () => {
  it('should give a new token at once and stop the old one, audited probe.rotate-token', async () => {
    const probe = await createProbe(admin, { type: 'heartbeat', target: 'rotated job' })
    const rotated = await ok<{ heartbeatToken: string; heartbeatUrl: string }>(
      'probes.rotateToken',
      { id: probe.id },
      admin,
    )
    expect(rotated.heartbeatToken).not.toBe(probe.heartbeatToken)
    expect(rotated.heartbeatUrl).toBe(`https://panel.test/api/heartbeat/${rotated.heartbeatToken}`)
    expect(await ping(probe.id, probe.heartbeatToken ?? '')).toBe(false)
    expect(await ping(probe.id, rotated.heartbeatToken)).toBe(true)
    expect(await auditActions(probe.id)).toEqual(['probe.create', 'probe.rotate-token'])
  })

  it('should answer 409 for a probe that is not a heartbeat', async () => {
    const probe = await createProbe(admin)
    const res = await call('probes.rotateToken', { id: probe.id }, admin)
    expect(res.status, res.text).toBe(409)
  })
})

describe('probes.list and probes.get', () => {
  it('should list newest first and get a probe with its events, deliveries and last ping', async () => {
    const first = await createProbe(admin)
    const second = await createProbe(admin)
    const ids = (await list()).map((p) => p.id)
    expect(ids.indexOf(second.id)).toBeLessThan(ids.indexOf(first.id))
    const detail = await get(first.id)
    expect(detail).toMatchObject({ id: first.id, state: 'paused', deliveries: [], lastPing: null })
    expect(Array.isArray(detail.events)).toBe(true)
  })
})

describe('unknown ids', () => {
  it('should answer 404 on every procedure that names a probe', async () => {
    const id = crypto.randomUUID()
    for (const [name, input] of [
      ['probes.get', { id }],
      ['probes.history', { id }],
      ['probes.update', { id, name: 'x' }],
      ['probes.setEnabled', { id, enabled: false }],
      ['probes.archive', { id }],
      ['probes.rotateToken', { id }],
    ] as const) {
      const res = await call<{ code: string }>(name, input, admin)
      expect(res.status, `${name}: ${res.text}`).toBe(404)
      expect(res.body.code).toBe('not_found')
    }
  })
})

describe('an operator', () => {
  it('should read probes but get 403 on every change', async () => {
    const operator = await operatorSession(admin)
    const probe: CreatedProbe = await createProbe(admin)
    for (const [name, input] of [
      ['probes.list', {}],
      ['probes.get', { id: probe.id }],
      ['probes.history', { id: probe.id, granularity: 'daily' }],
    ] as const) {
      const res = await call(name, input, operator)
      expect(res.status, `${name}: ${res.text}`).toBe(200)
    }
    for (const [name, input] of [
      ['probes.create', { name: 'op', type: 'http', targetKind: 'external', target: `${STATUS_ORIGIN}/` }],
      ['probes.update', { id: probe.id, name: 'op' }],
      ['probes.setEnabled', { id: probe.id, enabled: false }],
      ['probes.archive', { id: probe.id }],
      ['probes.rotateToken', { id: probe.id }],
    ] as const) {
      const res = await call(name, input, operator)
      expect(res.status, `${name}: ${res.text}`).toBe(403)
    }
    expect((await get(probe.id)).enabled).toBe(true)
  })
})
