import { createExecutionContext, createScheduledController, waitOnExecutionContext } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { beforeAll, describe, expect, it } from 'vitest'
import { db } from '../src/db/client'
import { accountsHoldingZone } from '../src/dns-accounts/zone-cache'
import type { Env } from '../src/env'
import worker from '../src/index'
import { cloudflareFake } from './fakes/provider-a-cloudflare'
import { digitalOceanFake } from './fakes/provider-b-digitalocean'
import { vultrFake } from './fakes/provider-d-vultr'
import { linodeFake } from './fakes/provider-e-linode'
import { type Caller, ok } from './helpers/http'
import { fakeOrigin } from './helpers/outbound'
import { adminSession } from './helpers/principals'

interface Row {
  id: string
  lastTestState: { ok: boolean; detail: string; retryAfterSeconds: number | null; testedAt: string }
}

let admin: Caller
const cf = cloudflareFake()
const doFake = digitalOceanFake()
const vultr = vultrFake()
const linode = linodeFake()
let cfAccount: Row
let doAccount: Row
let vultrAccount: Row
let linodeAccount: Row

function installAll() {
  for (const fake of [cf, doFake, vultr, linode]) fakeOrigin(fake.origin, fake.handle)
}

const zoneNames = async (id: string) =>
  (await ok<{ zones: { name: string }[] }>('accounts.zones', { id }, admin)).zones.map((zone) => zone.name)

async function runCron(at: string): Promise<void> {
  const controller = createScheduledController({ scheduledTime: new Date(at), cron: '0 * * * *' })
  const ctx = createExecutionContext()
  await worker.scheduled(controller, env as unknown as Env, ctx)
  await waitOnExecutionContext(ctx)
}

beforeAll(async () => {
  admin = await adminSession()
  cf.addZone('shared.test')
  cf.addZone('cf-only.test')
  doFake.addZone('shared.test')
  doFake.addZone('sub.shared.test')
  vultr.addZone('vultr.test')
  linode.addZone('linode.test')
  installAll()
  const create = (name: string, provider: string, token: string) =>
    ok<Row>('accounts.create', { kind: 'dns', name, provider, token }, admin)
  cfAccount = await create('cf', 'provider_a', cf.token)
  doAccount = await create('do', 'provider_b', doFake.token)
  vultrAccount = await create('vultr', 'provider_d', vultr.token)
  linodeAccount = await create('linode', 'provider_e', linode.token)
})

describe('accountsHoldingZone', () => {
  it('should name every account whose cached zones hold the zone, in any letter case', async () => {
    const holders = await accountsHoldingZone(db(env.DB), 'Shared.Test.')
    expect(holders.map((h) => h.accountId).sort()).toEqual([cfAccount.id, doAccount.id].sort())
    const viaDo = holders.find((h) => h.accountId === doAccount.id)
    expect(viaDo).toMatchObject({
      accountName: 'do',
      provider: 'provider_b',
      zoneId: 'shared.test',
      zoneName: 'shared.test',
    })
    const viaCf = holders.find((h) => h.accountId === cfAccount.id)
    expect(viaCf?.zoneId).toBe(cf.zones[0]?.id)
    expect(await accountsHoldingZone(db(env.DB), 'nobody.test')).toEqual([])
  })

  it('should answer from one indexed lookup on the zone name', async () => {
    const query = accountsHoldingZone(db(env.DB), 'shared.test').toSQL()
    const plan = await env.DB.prepare(`EXPLAIN QUERY PLAN ${query.sql}`)
      .bind(...query.params)
      .all<{ detail: string }>()
    const steps = plan.results.map((row) => row.detail)
    expect(
      steps.find((step) => step.includes('account_zones')),
      steps.join('; '),
    ).toContain('USING INDEX account_zones_name_idx (zone_name=?)')
    expect(
      steps.find((step) => / accounts /.test(step)),
      steps.join('; '),
    ).toMatch(/SEARCH accounts USING/)
    expect(steps.join('; ')).not.toContain('SCAN')
  })
})

describe('the hourly zone refresh (Cron Trigger)', () => {
  it('should re-list every dns account’s zones through the worker’s scheduled handler', async () => {
    installAll()
    cf.addZone('added-later.test')
    linode.addZone('linode-two.test')
    vultr.rateLimitRetryAfter = 120
    await runCron('2026-03-01T10:00:00.000Z')

    expect(await zoneNames(cfAccount.id)).toEqual(['added-later.test', 'cf-only.test', 'shared.test'])
    expect(await zoneNames(linodeAccount.id)).toEqual(['linode-two.test', 'linode.test'])
    const cfRow = await ok<Row>('accounts.get', { id: cfAccount.id }, admin)
    expect(cfRow.lastTestState).toMatchObject({ ok: true, testedAt: '2026-03-01T10:00:00.000Z' })
    // A rate-limited provider keeps the zones it had and records why the refresh did not happen.
    expect(await zoneNames(vultrAccount.id)).toEqual(['vultr.test'])
    const vultrRow = await ok<Row>('accounts.get', { id: vultrAccount.id }, admin)
    expect(vultrRow.lastTestState).toMatchObject({ ok: false, retryAfterSeconds: 120 })
    expect((await accountsHoldingZone(db(env.DB), 'added-later.test')).map((h) => h.accountId)).toEqual([
      cfAccount.id,
    ])
    vultr.rateLimitRetryAfter = null
  })

  it('should only run on its own schedule', async () => {
    installAll()
    cf.addZone('not-yet.test')
    const controller = createScheduledController({ scheduledTime: new Date(), cron: '*/5 * * * *' })
    const ctx = createExecutionContext()
    await worker.scheduled(controller, env as unknown as Env, ctx)
    await waitOnExecutionContext(ctx)
    expect(await zoneNames(cfAccount.id)).not.toContain('not-yet.test')
    await runCron('2026-03-01T11:00:00.000Z')
    expect(await zoneNames(cfAccount.id)).toContain('not-yet.test')
  })
})
