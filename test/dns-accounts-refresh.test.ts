import { env } from 'cloudflare:workers'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { refreshAllZones } from '../src/dns-accounts/refresh-zones-cron'
import type { Env } from '../src/env'
import { cloudflareFake } from './fakes/provider-a-cloudflare'
import { vultrFake } from './fakes/provider-d-vultr'
import { type Caller, ok } from './helpers/http'
import { fakeOrigin, outboundRequests } from './helpers/outbound'
import { adminSession } from './helpers/principals'

interface Row {
  id: string
  name: string
  lastTestState: { ok: boolean; detail: string; retryAfterSeconds: number | null; testedAt: string }
}

let admin: Caller
const HOUR = 3_600_000

const create = (name: string, provider: string, token: string) =>
  ok<Row>('accounts.create', { kind: 'dns', name, provider, token }, admin)
const testedAt = async (id: string) => (await ok<Row>('accounts.get', { id }, admin)).lastTestState.testedAt
const zoneNames = async (id: string) =>
  (await ok<{ zones: { name: string }[] }>('accounts.zones', { id }, admin)).zones.map((zone) => zone.name)

beforeAll(async () => {
  admin = await adminSession()
})

afterEach(async () => {
  for (const row of await ok<Row[]>('accounts.list', { kind: 'dns' }, admin)) {
    await ok('accounts.remove', { id: row.id }, admin)
  }
})

describe('the hourly zone refresh', () => {
  it('should take the longest-untested accounts first and leave the rest once its budget is spent', async () => {
    const fake = cloudflareFake()
    fake.addZone('budget.test')
    const failing = cloudflareFake({ origin: 'https://cf-failing.internal.test' })
    // Every provider call takes 10 s on this clock: a good account's check is two calls, a failing one's one.
    let elapsed = 0
    const clock = () => elapsed
    fakeOrigin(fake.origin, (request) => {
      elapsed += 10_000
      return fake.handle(request)
    })
    fakeOrigin(failing.origin, () => {
      elapsed += 10_000
      return new Response('upstream error', { status: 500 })
    })
    const flaky = await ok<Row>(
      'accounts.create',
      {
        kind: 'dns',
        name: 'flaky',
        provider: 'provider_a',
        token: failing.token,
        apiBaseUrl: failing.apiBaseUrl,
      },
      admin,
    )
    const second = await create('second', 'provider_a', fake.token)
    const third = await create('third', 'provider_a', fake.token)

    const run1 = new Date(Date.now() + HOUR)
    await refreshAllZones(env as unknown as Env, run1, { budgetMs: 25_000, clock })
    expect(await testedAt(flaky.id)).toBe(run1.toISOString())
    expect(await testedAt(second.id)).toBe(run1.toISOString())
    expect(await testedAt(third.id)).toBe(third.lastTestState.testedAt)

    // The one left out goes first next time, ahead of the failing one whose zones are older but which was tried.
    const run2 = new Date(run1.getTime() + HOUR)
    elapsed = 0
    await refreshAllZones(env as unknown as Env, run2, { budgetMs: 15_000, clock })
    expect(await testedAt(third.id)).toBe(run2.toISOString())
    expect(await testedAt(flaky.id)).toBe(run1.toISOString())
    expect(await testedAt(second.id)).toBe(run1.toISOString())
  })

  it('should leave an account alone while its provider’s Retry-After (here a 503) runs, then refresh it', async () => {
    const vultr = vultrFake()
    vultr.addZone('vultr.test')
    fakeOrigin(vultr.origin, vultr.handle)
    const row = await create('vultr', 'provider_d', vultr.token)
    vultr.outageRetryAfter = 600
    await ok('accounts.test', { id: row.id }, admin)
    const waiting = await ok<Row>('accounts.get', { id: row.id }, admin)
    expect(waiting.lastTestState).toMatchObject({ ok: false, retryAfterSeconds: 600 })
    expect(waiting.lastTestState.detail).toContain('HTTP 503')
    expect(await zoneNames(row.id)).toEqual(['vultr.test'])
    vultr.outageRetryAfter = null
    vultr.addZone('later.test')

    const calls = outboundRequests().length
    const within = new Date(Date.parse(waiting.lastTestState.testedAt) + 599_000)
    await refreshAllZones(env as unknown as Env, within)
    expect(outboundRequests()).toHaveLength(calls)
    expect((await ok<Row>('accounts.get', { id: row.id }, admin)).lastTestState).toEqual(
      waiting.lastTestState,
    )

    const after = new Date(Date.parse(waiting.lastTestState.testedAt) + 600_000)
    await refreshAllZones(env as unknown as Env, after)
    expect((await ok<Row>('accounts.get', { id: row.id }, admin)).lastTestState).toMatchObject({
      ok: true,
      retryAfterSeconds: null,
      testedAt: after.toISOString(),
    })
    expect(await zoneNames(row.id)).toEqual(['later.test', 'vultr.test'])
  })

  it('should not overwrite an update that committed while it was calling the provider', async () => {
    const old = cloudflareFake()
    old.addZone('old.test')
    const rotated = cloudflareFake()
    rotated.addZone('rotated.test')
    const byToken = (request: Request) =>
      request.headers.get('authorization') === `Bearer ${rotated.token}` ? rotated : old
    fakeOrigin(old.origin, (request) => byToken(request).handle(request))
    const row = await create('raced', 'provider_a', old.token)
    let raced = false
    fakeOrigin(old.origin, async (request) => {
      if (!raced) {
        raced = true
        await ok('accounts.update', { id: row.id, token: rotated.token }, admin)
      }
      return byToken(request).handle(request)
    })
    await refreshAllZones(env as unknown as Env, new Date(Date.now() + HOUR))
    expect(raced).toBe(true)
    const got = await ok<Row>('accounts.get', { id: row.id }, admin)
    expect(got.lastTestState.detail).toContain('1 zone: rotated.test')
    expect(await zoneNames(row.id)).toEqual(['rotated.test'])
  })
})
