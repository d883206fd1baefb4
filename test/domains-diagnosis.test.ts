import { beforeEach, describe, expect, it, vi } from 'vitest'
import type { Diagnosis } from '../src/diagnosis/schema'
import { zoneName } from './custom-hostnames/fixture'
import { type DomainWorld, domainWorld, runJobsUntil, stepOf } from './domains/fixture'
import { call, ok } from './helpers/http'
import { tokenFor } from './helpers/principals'

// domains.get carries the diagnosis of the domain's DNS (reused for 30 s); domains.check reads anew, stores it,
// and asks the node to issue once DNS is right and no certificate is served yet.

interface DomainWithDiagnosis {
  certState: string
  diagnosis: Diagnosis
}

let world: DomainWorld

beforeEach(async () => {
  world = await domainWorld()
})

const attachManual = (hostname: string) =>
  ok<{ domainId: string }>(
    'domains.attach',
    { siteId: world.site.siteId, hostname, driver: 'manual' },
    world.admin,
  ).then((answer) => answer.domainId)
const get = (id: string) => ok<DomainWithDiagnosis>('domains.get', { id }, world.admin)
const check = (id: string) => ok<DomainWithDiagnosis>('domains.check', { id }, world.admin)
const verdictsOf = (d: DomainWithDiagnosis) =>
  d.diagnosis.verdicts.map((v) => [v.kind, v.type, ...v.observed])

describe('the diagnosis of a domain', () => {
  it('should reuse it in get, read anew in check and store what check read', async () => {
    const hostname = `www.${zoneName('domdiag')}`
    const id = await attachManual(hostname)
    world.doh.set(hostname, 'AAAA', ['2001:db8::7'])
    const first = await get(id)
    expect(verdictsOf(first)).toEqual([
      ['missing', 'CNAME'],
      ['in-the-way', 'AAAA', '2001:db8::7'],
    ])
    expect(first.diagnosis.verdicts.every((v) => !v.fixable)).toBe(true)
    world.doh.set(hostname, 'AAAA', [])
    world.doh.set(hostname, 'CNAME', [`${world.target}.`])
    expect((await get(id)).diagnosis).toEqual(first.diagnosis)
    const checked = await check(id)
    expect(verdictsOf(checked)).toEqual([['ok', 'CNAME', world.target]])
    expect((await get(id)).diagnosis).toEqual(checked.diagnosis)
  })

  it('should let a token holding only domains:view check, and answer 404 for an unknown id', async () => {
    const id = await attachManual(`www.${zoneName('domview')}`)
    const viewer = await tokenFor(world.admin, ['domains:view'])
    expect((await call('domains.check', { id }, viewer)).status).toBe(200)
    const unknown = await call('domains.check', { id: crypto.randomUUID() }, world.admin)
    expect(unknown.status, unknown.text).toBe(404)
  })

  it('should ask the node to issue once DNS is right and no certificate is served yet', async () => {
    const hostname = `www.${zoneName('domprime')}`
    world.doh.set(hostname, 'CNAME', [`${world.target}.`])
    const id = await attachManual(hostname)
    await runJobsUntil(world.sent, async () => (await stepOf(id)) === 'certificate')
    const primes = () => world.agent.calls.filter((c) => c.path === '/v2/certificates/prime')
    expect(primes()).toEqual([])
    expect((await check(id)).certState).toBe('pending')
    await vi.waitFor(() => expect(primes().map((c) => c.body)).toEqual([{ hostname }]), { timeout: 5_000 })
  })
})
