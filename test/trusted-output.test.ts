import { beforeAll, describe, expect, it } from 'vitest'
import { procedures } from '../src/rpc/registry'
import { siteWithToken, zoneName } from './custom-hostnames/fixture'
import { trustedOutputProblems } from './helpers/contract'
import { type Caller, ok } from './helpers/http'
import { adminSession } from './helpers/principals'

let admin: Caller

beforeAll(async () => {
  admin = await adminSession()
})

// Every 200 these send through the test helpers is checked by `trustedOutputProblems` (test/helpers/contract.ts):
// the suites of each (fleet, node health, routes, domains, custom hostnames) are what exercise their variety.
describe('the procedures sent without the output parse', () => {
  it('should be exactly the hot reads that build their rows field by field', () => {
    const trusted = [...procedures].filter(([, proc]) => proc.trustedOutput).map(([name]) => name)
    expect(trusted.sort()).toEqual([
      'customHostnames.probe',
      'customHostnames.status',
      'domains.get',
      'nodes.list',
      'routes.listForSite',
    ])
  })

  it('should fail the contract check for a body the parse would change or refuse', async () => {
    const site = await siteWithToken(admin)
    const hostname = `www.${zoneName('trusted')}`
    const { domainId } = await ok<{ domainId: string }>(
      'domains.attach',
      { siteId: site.siteId, hostname, driver: 'manual' },
      admin,
    )
    const body = await ok<Record<string, unknown>>('domains.get', { id: domainId }, admin)
    expect(trustedOutputProblems('domains.get', body)).toEqual([])
    expect(trustedOutputProblems('domains.get', { ...body, agentSecretSealed: 'x' })).toHaveLength(1)
    expect(trustedOutputProblems('domains.get', { ...body, createdAt: 'yesterday' })).toHaveLength(1)
    const nodes = await ok<Record<string, unknown>[]>('nodes.list', {}, admin)
    expect(trustedOutputProblems('nodes.list', nodes)).toEqual([])
    expect(
      trustedOutputProblems(
        'nodes.list',
        nodes.map((node) => ({ ...node, extra: 1 })),
      ),
    ).toHaveLength(1)
  })
})
