import { beforeAll, describe, expect, it } from 'vitest'
import { workerEnv } from './helpers/changelog'
import { type Caller, call, ok } from './helpers/http'
import { interceptOutbound } from './helpers/outbound'
import { adminSession } from './helpers/principals'
import { raced } from './helpers/races'

interface Row {
  id: string
  [key: string]: unknown
}

let admin: Caller

const createNode = (name: string) =>
  ok<Row>(
    'nodes.create',
    { name, agentUrl: 'https://agent.example.test', agentSecret: 'agent-secret-0123456789' },
    admin,
  )
const createInstance = (nodeId: string, name = 'i1') =>
  ok<Row>('instances.create', { nodeId, name, address: '10.0.0.2' }, admin)

async function count(table: string, column: string, value: string): Promise<number> {
  const row = await workerEnv.DB.prepare(`SELECT count(*) AS n FROM ${table} WHERE ${column} = ?`)
    .bind(value)
    .first<{ n: number }>()
  return row?.n ?? 0
}

beforeAll(async () => {
  interceptOutbound()
  admin = await adminSession()
})

describe('remove racing create', () => {
  it('should answer 409, not 500, when an instance lands between nodes.remove reading and deleting', async () => {
    const node = await createNode('race-remove-node')
    const { main, rival } = await raced(
      () => call('nodes.remove', { id: node.id }, admin),
      () => call('instances.create', { nodeId: node.id, name: 'late', address: '10.0.0.9' }, admin),
    )
    expect(rival.status, rival.text).toBe(200)
    expect(main.status, main.text).toBe(409)
    expect((main.body as { code: string }).code).toBe('conflict')
    expect(await count('nodes', 'id', node.id)).toBe(1)
  })

  it('should never answer 500 when instances.create loses to nodes.remove', async () => {
    const node = await createNode('race-create-instance')
    const { main, rival } = await raced(
      () => call('instances.create', { nodeId: node.id, name: 'lost', address: '10.0.0.9' }, admin),
      () => call('nodes.remove', { id: node.id }, admin),
    )
    expect(rival.status, rival.text).toBe(200)
    expect([404, 409], main.text).toContain(main.status)
    expect(await count('instances', 'node_id', node.id)).toBe(0)
  })

  it('should answer 409, not 500, when a site lands between instances.remove reading and deleting', async () => {
    const node = await createNode('race-remove-instance')
    const instance = await createInstance(node.id)
    const { main, rival } = await raced(
      () => call('instances.remove', { id: instance.id }, admin),
      () => call('sites.create', { instanceId: instance.id, name: 'late' }, admin),
    )
    expect(rival.status, rival.text).toBe(200)
    expect(main.status, main.text).toBe(409)
    expect((main.body as { code: string }).code).toBe('conflict')
  })

  it('should answer 409, not 500, when sites.create loses to instances.remove', async () => {
    const node = await createNode('race-create-site')
    const instance = await createInstance(node.id)
    const { main, rival } = await raced(
      () => call('sites.create', { instanceId: instance.id, name: 'lost' }, admin),
      () => call('instances.remove', { id: instance.id }, admin),
    )
    expect(rival.status, rival.text).toBe(200)
    expect(main.status, main.text).toBe(409)
    expect((main.body as { code: string }).code).toBe('conflict')
    expect(await count('sites', 'instance_id', instance.id)).toBe(0)
  })

  it('should never answer 500 when accounts.remove and accounts.setDefault race, either way round', async () => {
    const node = await createNode('race-defaults')
    const account = (n: number) =>
      ok<Row>(
        'accounts.create',
        { kind: 'git', name: `race-git-${n}`, provider: 'github', token: `ghp_${String(n).repeat(36)}` },
        admin,
      )
    const setDefault = (accountId: string) =>
      call('accounts.setDefault', { scope: 'node', scopeId: node.id, kind: 'git', accountId }, admin)

    const first = await account(1)
    const removeFirst = await raced(
      () => call('accounts.remove', { id: first.id }, admin),
      () => setDefault(first.id),
    )
    expect(removeFirst.rival.status, removeFirst.rival.text).toBe(200)
    expect(removeFirst.main.status, removeFirst.main.text).toBe(409)

    const second = await account(2)
    const setFirst = await raced(
      () => setDefault(second.id),
      () => call('accounts.remove', { id: second.id }, admin),
    )
    expect(setFirst.rival.status, setFirst.rival.text).toBe(200)
    expect(setFirst.main.status, setFirst.main.text).toBe(409)
    expect((setFirst.main.body as { code: string }).code).toBe('conflict')
  })
})

describe('the nameserver role under races', () => {
  it('should refuse the nameserver role when an instance lands meanwhile', async () => {
    const node = await createNode('race-role-update')
    const { main, rival } = await raced(
      () => call('nodes.update', { id: node.id, roles: ['nameserver'] }, admin),
      () => call('instances.create', { nodeId: node.id, name: 'late', address: '10.0.0.9' }, admin),
    )
    expect(rival.status, rival.text).toBe(200)
    expect(main.status, main.text).toBe(409)
    expect((await ok<{ roles: string[] }>('nodes.get', { id: node.id }, admin)).roles).toEqual(['host'])
  })

  it('should refuse an instance when its node became a nameserver meanwhile', async () => {
    const node = await createNode('race-role-create')
    const { main, rival } = await raced(
      () => call('instances.create', { nodeId: node.id, name: 'late', address: '10.0.0.9' }, admin),
      () => call('nodes.update', { id: node.id, roles: ['nameserver'] }, admin),
    )
    expect(rival.status, rival.text).toBe(200)
    expect(main.status, main.text).toBe(409)
    expect(await count('instances', 'node_id', node.id)).toBe(0)
  })
})

describe('nodes.update under races', () => {
  it('should keep a concurrent change and answer the stale update 409', async () => {
    const node = await createNode('race-update')
    const { main, rival } = await raced(
      () => call('nodes.update', { id: node.id, name: 'race-update-renamed' }, admin),
      () => call('nodes.update', { id: node.id, publicIpv4: '192.0.2.77' }, admin),
    )
    expect(rival.status, rival.text).toBe(200)
    expect(main.status, main.text).toBe(409)
    const row = await ok<Row>('nodes.get', { id: node.id }, admin)
    expect(row).toMatchObject({ name: 'race-update', publicIpv4: '192.0.2.77' })
  })

  it('should write only the fields it was given', async () => {
    const node = await createNode('partial-update')
    await ok('nodes.update', { id: node.id, publicIpv6: '2001:db8::5' }, admin)
    const row = await ok<Row>('nodes.get', { id: node.id }, admin)
    expect(row).toMatchObject({ name: 'partial-update', publicIpv6: '2001:db8::5', roles: ['host'] })
  })
})
