import { accounts, accountZones } from '../../src/db/schema/accounts'
import { dnsZones, nameservers } from '../../src/db/schema/dns-servers'
import { asArray, cloneRow, field, ids, insertEach, type SeedContext, TIED_TIMES } from './seed-kit'

function sortedBy(rows: { id: string; key: string }[]): string[] {
  return [...rows].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)).map((row) => row.id)
}

/** DNS accounts and their zones, self-hosted nameservers and zones. */
export async function seedDnsLists({ admin, site, now, tag, cases, newest }: SeedContext): Promise<void> {
  const accountIds = ids('account')
  const testState = { ok: true, detail: 'seeded', retryAfterSeconds: null, testedAt: now.toISOString() }
  await insertEach(
    accounts,
    accountIds.map((id, i) => ({
      id,
      kind: 'git' as const,
      name: `lists-${id}`,
      provider: 'github' as const,
      tokenSealed: 'sealed',
      lastTestState: testState,
      createdAt: new Date(TIED_TIMES[i] ?? 0),
      updatedAt: now,
    })),
  )
  newest('accounts.list', accountIds, { shape: 'array', rowsOf: asArray })

  // A dns account's zones page by name; the cursor is the last zone's name.
  const dnsAccount = `account-${crypto.randomUUID()}`
  await insertEach(accounts, {
    id: dnsAccount,
    kind: 'dns',
    name: dnsAccount,
    provider: 'provider_a',
    tokenSealed: 'sealed',
    lastTestState: testState,
    createdAt: now,
    updatedAt: now,
  })
  const zoneNames = ['m', 'c', 'x', 'a', 'q', 'b', 'k'].map((label) => `${label}.lists.example`)
  await insertEach(
    accountZones,
    zoneNames.map((zoneName, i) => ({ accountId: dnsAccount, zoneName, zoneId: `zone-${i}` })),
  )
  cases['accounts.zones'] = {
    input: { id: dnsAccount },
    caller: admin,
    expected: [...zoneNames].sort(),
    exclusive: true,
    shape: 'object',
    rowsOf: field('zones'),
    idOf: (row) => String(row.name),
  }

  const boxIds = ids('box')
  await cloneRow(
    'nodes',
    { column: 'id', value: site.nodeId },
    boxIds.map((id) => ({ id, name: `lists-${id}`, roles: '["nameserver"]' })),
  )
  const boxes = boxIds.map((id, i) => ({ id, key: `ns${(i * 5) % 7}.${tag}.lists.example` }))
  await insertEach(
    nameservers,
    boxes.map(({ id, key }) => ({ nodeId: id, hostname: key, createdAt: now, updatedAt: now })),
  )
  cases['dnsServers.nameservers.list'] = {
    input: {},
    caller: admin,
    expected: sortedBy(boxes),
    exclusive: false,
    shape: 'array',
    rowsOf: asArray,
  }

  const zones = ids('zone').map((id, i) => ({ id, key: `z${(i * 3) % 7}.${tag}.lists.example` }))
  await insertEach(
    dnsZones,
    zones.map(({ id, key }) => ({ id, name: key, dnssec: false, createdAt: now, updatedAt: now })),
  )
  cases['dnsServers.zones.list'] = {
    input: {},
    caller: admin,
    expected: sortedBy(zones),
    exclusive: false,
    shape: 'array',
    rowsOf: asArray,
  }
}
