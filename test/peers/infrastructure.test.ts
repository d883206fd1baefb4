import { env } from 'cloudflare:workers'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Env } from '../../src/env'
import { dohLookup } from '../../src/outside/doh'
import { agentHealth } from '../../src/outside/node-agent'
import { zoneName } from '../custom-hostnames/fixture'
import { type Caller, ok } from '../helpers/http'
import { adminSession } from '../helpers/principals'
import { edgeNode, enrollPeerBoxes } from './peers'

// Step 1 of the end-to-end suite: the peers answer the panel for real.
const workerEnv = env as unknown as Env

describe('peers infrastructure', () => {
  let admin: Caller

  beforeAll(async () => {
    admin = await adminSession()
  })

  it('should resolve what the panel wrote on the boxes through dnsdist, in RFC 8484 wire format', async () => {
    await enrollPeerBoxes(admin, 'infra')
    const zone = await ok<{ id: string; name: string }>(
      'dnsServers.zones.create',
      { name: zoneName('infra') },
      admin,
    )
    const www = `www.${zone.name}`
    await ok(
      'dnsServers.zones.upsertRecord',
      { id: zone.id, name: www, type: 'A', ttl: 60, values: ['127.0.0.1'] },
      admin,
    )
    const alias = `alias.${zone.name}`
    await ok(
      'dnsServers.zones.upsertRecord',
      { id: zone.id, name: alias, type: 'CNAME', ttl: 60, values: [`${www}.`] },
      admin,
    )
    expect(await dohLookup(workerEnv.DOH_RESOLVER_URL, www, 'A')).toMatchObject({
      status: 0,
      data: ['127.0.0.1'],
      answers: [{ name: www, data: '127.0.0.1', ttl: 60 }],
    })
    expect(await dohLookup(workerEnv.DOH_RESOLVER_URL, alias, 'CNAME')).toMatchObject({
      status: 0,
      data: [`${www}.`],
    })
    expect((await dohLookup(workerEnv.DOH_RESOLVER_URL, zone.name, 'NS')).data.sort()).toEqual([
      'ns1.infra-panel.test.',
      'ns2.infra-panel.test.',
    ])
    expect(await dohLookup(workerEnv.DOH_RESOLVER_URL, `missing.${zone.name}`, 'A')).toMatchObject({
      status: 3,
      data: [],
    })
  })

  it('should find the reference agent up, driving a reachable Caddy', async () => {
    const node = await edgeNode(admin, 'infra')
    const health = await agentHealth(node.agent)
    expect(health).toMatchObject({
      contract: 'v2',
      appliedVersion: 0,
      proxy: { name: 'caddy', reachable: true },
    })
    expect(health.proxy.version).toMatch(/^2\./)
  })
})
