import { env } from 'cloudflare:workers'
import type { SQLiteTable } from 'drizzle-orm/sqlite-core'
import { db } from '../../src/db/client'
import { accounts, accountZones } from '../../src/db/schema/accounts'
import {
  changelogReleases,
  changelogWebhookDeliveries,
  changelogWebhookTargets,
} from '../../src/db/schema/changelog'
import { channelDeliveries, channels } from '../../src/db/schema/channels'
import { customHostnames } from '../../src/db/schema/custom-hostnames'
import { dnsZones, nameservers } from '../../src/db/schema/dns-servers'
import { domains } from '../../src/db/schema/domains'
import { failedJobs } from '../../src/db/schema/jobs'
import { maintenanceWindows } from '../../src/db/schema/maintenance'
import { operationalDeliveries } from '../../src/db/schema/notifications'
import { routes } from '../../src/db/schema/routes'
import { statusPageWebhooks } from '../../src/db/schema/status-page-subscribers'
import { statusPages } from '../../src/db/schema/status-pages'
import type { Env } from '../../src/env'
import { siteWithToken } from '../custom-hostnames/fixture'
import type { Caller } from '../helpers/http'
import { BOOTSTRAP, tokenFor } from '../helpers/principals'
import { createProbe } from '../probes/catalogue-fixture'

const workerEnv = env as unknown as Env
const d = () => db(workerEnv.DB)

/** Far enough ahead that seeded rows are the newest of any list. */
export const FUTURE = Date.UTC(2100, 0, 1)

/**
 * Seven rows' creation times in insertion order: four share one millisecond, two another, so a page of three
 * ends inside a tie. Newest first they run 5, 4, 3, 2, 1, 6, 0 (a later insert first on a tie).
 */
export const TIED_TIMES = [1, 2, 2, 2, 2, 3, 1].map((n) => FUTURE + n)

/** Insertion indexes (of rows created at `times`) in newest-first order, later inserts first on a tie. */
export function newestFirstOrder(times: readonly number[]): number[] {
  return times.map((_, i) => i).sort((a, b) => (times[b] ?? 0) - (times[a] ?? 0) || b - a)
}

export interface ListCase {
  /** The procedure's other input (the list's scope). */
  input: Record<string, unknown>
  caller: Caller
  /** The seeded rows' ids (the cursor each row gives) in the list's order. */
  expected: string[]
  /** Whether the list holds only the seeded rows; otherwise they are checked as a subsequence. */
  exclusive: boolean
  /** `object`: the answer carries nextCursor; `array`: a page shorter than limit is the last. */
  shape: 'array' | 'object'
  rowsOf(body: unknown): { id: string }[]
  idOf?(row: Record<string, unknown>): string
}

const asArray = (body: unknown) => body as { id: string }[]
const field = (key: string) => (body: unknown) => (body as Record<string, { id: string }[]>)[key] ?? []

/** Copies a row of `table` once per override set, in one batch (so in that insertion order). */
export async function cloneRow(
  table: string,
  where: { column: string; value: unknown },
  overrides: Record<string, unknown>[],
): Promise<void> {
  const base = await workerEnv.DB.prepare(`select * from ${table} where ${where.column} = ?`)
    .bind(where.value)
    .first<Record<string, unknown>>()
  if (!base) throw new Error(`no ${table} row with ${where.column} = ${String(where.value)}`)
  await workerEnv.DB.batch(
    overrides.map((over) => {
      const row = { ...base, ...over }
      for (const [key, value] of Object.entries(over)) if (value === undefined) delete row[key]
      const columns = Object.keys(row)
      return workerEnv.DB.prepare(
        `insert into ${table} (${columns.map((c) => `"${c}"`).join(', ')}) values (${columns.map(() => '?').join(', ')})`,
      ).bind(...columns.map((c) => row[c] ?? null))
    }),
  )
}

/** Inserts rows one statement each, in one batch (D1 binds at most 100 values per statement). */
async function insertEach<T extends SQLiteTable>(table: T, rows: T['$inferInsert'] | T['$inferInsert'][]) {
  const all = Array.isArray(rows) ? rows : [rows]
  const [first, ...rest] = all.map((row) => d().insert(table).values(row))
  if (first) await d().batch([first, ...rest])
}

const ids = (_what: string) => TIED_TIMES.map(() => crypto.randomUUID())
const inOrder = (rows: readonly string[], order: readonly number[]) => order.map((i) => rows[i] ?? '')
const tiedOrder = newestFirstOrder(TIED_TIMES)

function sortedBy(rows: { id: string; key: string }[]): string[] {
  return [...rows].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)).map((row) => row.id)
}

/** Seeds seven rows for every list procedure and says how each list must page them. */
export async function seedLists(admin: Caller): Promise<Record<string, ListCase>> {
  const site = await siteWithToken(admin)
  const now = new Date()
  const cases: Record<string, ListCase> = {}
  const newest = (
    name: string,
    rows: string[],
    rest: Partial<ListCase> & Pick<ListCase, 'rowsOf' | 'shape'>,
  ) => {
    cases[name] = { input: {}, caller: admin, expected: inOrder(rows, tiedOrder), exclusive: false, ...rest }
  }

  const userIds = ids('user')
  await cloneRow(
    'users',
    { column: 'email', value: BOOTSTRAP.email },
    userIds.map((id, i) => ({
      id,
      email: `user-${id}@lists.test`,
      role: 'operator',
      created_at: TIED_TIMES[i],
    })),
  )
  newest('users.list', userIds, { shape: 'array', rowsOf: asArray })

  const token = await tokenFor(admin, ['fleet:view'])
  const tokenIds = ids('token')
  await cloneRow(
    'api_tokens',
    { column: 'id', value: token.tokenId },
    tokenIds.map((id, i) => ({ id, token_hash: `hash-${id}`, created_at: TIED_TIMES[i] })),
  )
  newest('tokens.list', tokenIds, { shape: 'array', rowsOf: asArray })

  const nodeIds = ids('node')
  await cloneRow(
    'nodes',
    { column: 'id', value: site.nodeId },
    nodeIds.map((id, i) => ({ id, name: `lists-${id}`, created_at: TIED_TIMES[i] })),
  )
  newest('nodes.list', nodeIds, { shape: 'array', rowsOf: asArray })

  const instanceIds = ids('instance')
  await cloneRow(
    'instances',
    { column: 'id', value: site.instanceId },
    instanceIds.map((id, i) => ({ id, name: `lists-${id}`, created_at: TIED_TIMES[i] })),
  )
  newest('instances.list', instanceIds, { input: { nodeId: site.nodeId }, shape: 'array', rowsOf: asArray })

  const siteIds = ids('site')
  await cloneRow(
    'sites',
    { column: 'id', value: site.siteId },
    siteIds.map((id, i) => ({ id, name: `lists-${id}`, created_at: TIED_TIMES[i] })),
  )
  newest('sites.list', siteIds, { input: { instanceId: site.instanceId }, shape: 'array', rowsOf: asArray })

  const siteTokenIds = ids('site-token')
  await cloneRow(
    'api_tokens',
    { column: 'id', value: site.app.tokenId },
    siteTokenIds.map((id, i) => ({ id, token_hash: `hash-${id}`, created_at: TIED_TIMES[i] })),
  )
  newest('sites.tokens.list', siteTokenIds, {
    input: { siteId: site.siteId },
    shape: 'array',
    rowsOf: asArray,
  })

  // Audit entries page by their ascending id, newest (highest) first.
  const marker = `lists-${crypto.randomUUID()}`
  const lastAudit = await workerEnv.DB.prepare('select max(id) as id from audit_log').first<{ id: number }>()
  await cloneRow(
    'audit_log',
    { column: 'id', value: lastAudit?.id },
    TIED_TIMES.map((at) => ({ id: undefined, target_id: marker, created_at: at })),
  )
  const audit = await workerEnv.DB.prepare('select id from audit_log where target_id = ? order by id desc')
    .bind(marker)
    .all<{ id: number }>()
  cases['audit.list'] = {
    input: { targetId: marker },
    caller: admin,
    expected: audit.results.map((row) => String(row.id)),
    exclusive: true,
    shape: 'object',
    rowsOf: field('entries'),
    idOf: (row) => String(row.id),
  }

  // Drafts newest first, then published releases by date and semver precedence (1.10.0 before 1.9.0).
  const release = (id: string, version: string, date: string | null, at: number) => ({
    id,
    version,
    title: `release ${version}`,
    severity: 'minor' as const,
    items: [],
    source: 'local' as const,
    date,
    publishedAt: date ? new Date(at) : null,
    createdAt: new Date(at),
    updatedAt: now,
  })
  const releaseIds = ids('release')
  const tag = crypto.randomUUID().slice(0, 8)
  const releaseRows = [
    release(releaseIds[0] ?? '', `0.0.1-draft.${tag}.0`, null, FUTURE + 1),
    release(releaseIds[1] ?? '', `0.0.1-draft.${tag}.1`, null, FUTURE + 2),
    release(releaseIds[2] ?? '', `99.1.0-${tag}`, '2099-01-01', FUTURE),
    release(releaseIds[3] ?? '', `0.0.1-draft.${tag}.2`, null, FUTURE + 2),
    release(releaseIds[4] ?? '', `99.9.0-${tag}`, '2099-01-02', FUTURE),
    release(releaseIds[5] ?? '', `99.10.0-${tag}`, '2099-01-02', FUTURE),
    release(releaseIds[6] ?? '', `0.0.1-draft.${tag}.3`, null, FUTURE + 1),
  ]
  await insertEach(changelogReleases, releaseRows)
  newest('changelog.releases.list', releaseIds, {
    expected: inOrder(releaseIds, [3, 1, 6, 0, 5, 4, 2]),
    shape: 'array',
    rowsOf: asArray,
  })

  const targetIds = ids('target')
  await insertEach(
    changelogWebhookTargets,
    targetIds.map((id, i) => ({
      id,
      url: `https://hooks.lists.example/${i}`,
      secretSealed: 'sealed',
      enabled: true,
      createdAt: new Date(TIED_TIMES[i] ?? 0),
      updatedAt: now,
    })),
  )
  newest('changelog.webhooks.list', targetIds, { shape: 'array', rowsOf: asArray })

  const deliveryIds = ids('delivery')
  await insertEach(
    changelogWebhookDeliveries,
    deliveryIds.map((id, i) => ({
      id,
      targetId: targetIds[0] ?? '',
      releaseId: releaseIds[2] ?? '',
      version: '99.1.0',
      body: '{}',
      status: 'delivered' as const,
      attempts: 1,
      createdAt: new Date(TIED_TIMES[i] ?? 0),
      updatedAt: now,
    })),
  )
  newest('changelog.webhooks.deliveries', deliveryIds, {
    input: { targetId: targetIds[0] },
    exclusive: true,
    shape: 'array',
    rowsOf: asArray,
  })

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

  const hostnameIds = ids('hostname')
  await insertEach(
    customHostnames,
    hostnameIds.map((id, i) => ({
      id,
      siteId: site.siteId,
      hostname: `shop${i}.${tag}.customer.example`,
      tier: 'external' as const,
      state: 'instructions' as const,
      reason: 'external-zone',
      zoneName: `${tag}.customer.example`,
      records: [],
      generation: 1,
      attempts: 0,
      dnsResolves: false,
      createdAt: new Date(TIED_TIMES[i] ?? 0),
      updatedAt: now,
    })),
  )
  newest('customHostnames.list', hostnameIds, {
    input: { siteId: site.siteId },
    caller: site.app,
    exclusive: true,
    shape: 'object',
    rowsOf: field('hostnames'),
  })

  const routeIds = ids('route')
  await insertEach(
    routes,
    routeIds.map((id, i) => ({
      id,
      nodeId: site.nodeId,
      instanceId: site.instanceId,
      siteId: site.siteId,
      kind: 'raw' as const,
      targetPort: 8000 + i,
      listenPort: 20000 + i,
      proto: 'tcp' as const,
      edgeConfig: { vhost: null, forward: null, appliedVersion: null, firewallManaged: null, error: null },
      status: 'pending' as const,
      configVersion: 1,
      createdAt: new Date(TIED_TIMES[i] ?? 0),
      updatedAt: now,
    })),
  )
  newest('routes.listForSite', routeIds, {
    input: { siteId: site.siteId },
    exclusive: true,
    shape: 'array',
    rowsOf: asArray,
  })
  newest('routes.listForInstance', routeIds, {
    input: { instanceId: site.instanceId },
    exclusive: true,
    shape: 'array',
    rowsOf: asArray,
  })

  const domainIds = ids('domain')
  await insertEach(
    domains,
    domainIds.map((id, i) => ({
      id,
      siteId: site.siteId,
      hostname: `www${i}.${tag}.domains.example`,
      driver: 'manual' as const,
      dnsState: 'pending' as const,
      issuer: 'pebble' as const,
      certState: 'none' as const,
      proxied: false,
      verification: [],
      records: [],
      written: [],
      step: 'dns-verify' as const,
      generation: 1,
      attempts: 0,
      stepStartedAt: now,
      createdAt: new Date(TIED_TIMES[i] ?? 0),
      updatedAt: now,
    })),
  )
  newest('domains.list', domainIds, {
    input: { siteId: site.siteId },
    exclusive: true,
    shape: 'object',
    rowsOf: field('domains'),
  })

  const probe = await createProbe(admin, { name: `base ${tag}` })
  const probeIds = ids('probe')
  await cloneRow(
    'probes',
    { column: 'id', value: probe.id },
    probeIds.map((id, i) => ({
      id,
      name: `walk ${tag} ${i}`,
      heartbeat_token_hash: null,
      next_check_at: null,
      created_at: TIED_TIMES[i],
    })),
  )
  newest('probes.list', probeIds, {
    input: { search: `walk ${tag} ` },
    exclusive: true,
    shape: 'array',
    rowsOf: asArray,
  })

  // Lists ordered by a time and then the id: ties run by id, highest first.
  const byTimeThenId = (rows: { id: string; at: number }[]) =>
    [...rows].sort((a, b) => b.at - a.at || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)).map((row) => row.id)
  const jobRows = TIED_TIMES.map((at) => ({ id: `walk-job-${crypto.randomUUID()}`, at }))
  await insertEach(
    failedJobs,
    jobRows.map(({ id, at }) => ({
      id,
      kind: 'route.reconcile',
      body: { type: 'route.reconcile', nodeId: site.nodeId },
      target: 'node walk',
      targetKind: 'node',
      targetId: site.nodeId,
      state: 'dead' as const,
      attempts: 18,
      retries: 0,
      lastError: 'agent answered 502',
      firstAttemptAt: new Date(at),
      lastAttemptAt: new Date(at),
    })),
  )
  cases['jobs.list'] = {
    input: { state: 'dead' },
    caller: admin,
    expected: byTimeThenId(jobRows),
    exclusive: false,
    shape: 'object',
    rowsOf: field('jobs'),
  }
  const deliveryRows = TIED_TIMES.map((at) => ({ id: crypto.randomUUID(), at }))
  await insertEach(
    operationalDeliveries,
    deliveryRows.map(({ id, at }) => ({
      id,
      notificationId: id,
      eventKey: 'node:walk',
      kind: 'node.unhealthy' as const,
      event: 'raised' as const,
      channel: 'email' as const,
      target: 'walk@ops.example.com',
      payload: JSON.stringify({ subject: 'walk' }),
      status: 'delivered' as const,
      attempts: 1,
      answer: null,
      createdAt: new Date(at),
      lastAttemptAt: new Date(at),
    })),
  )
  cases['settings.notifications.deliveries'] = {
    input: {},
    caller: admin,
    expected: byTimeThenId(deliveryRows),
    exclusive: false,
    shape: 'object',
    rowsOf: field('deliveries'),
  }

  const channelRows = TIED_TIMES.map((at) => ({ id: crypto.randomUUID(), at }))
  await insertEach(
    channels,
    channelRows.map(({ id, at }) => ({
      id,
      name: `walk channel ${id}`,
      kind: 'email' as const,
      settings: { recipients: ['walk@channels.example.com'] },
      secretSealed: null,
      hint: '1 recipient',
      apiBaseUrl: null,
      createdAt: new Date(at),
      updatedAt: new Date(at),
    })),
  )
  cases['notifications.channels.list'] = {
    input: {},
    caller: admin,
    expected: byTimeThenId(channelRows),
    exclusive: false,
    shape: 'object',
    rowsOf: field('channels'),
  }
  const channelId = channelRows[0]?.id ?? ''
  const channelDeliveryRows = TIED_TIMES.map((at) => ({ id: crypto.randomUUID(), at }))
  await insertEach(
    channelDeliveries,
    channelDeliveryRows.map(({ id, at }) => ({
      id,
      channelId,
      probeId: null,
      event: 'test',
      title: 'walk',
      status: 'delivered' as const,
      attempts: 1,
      answer: 'accepted',
      createdAt: new Date(at),
      lastAttemptAt: new Date(at),
    })),
  )
  cases['notifications.channels.deliveries'] = {
    input: { id: channelId },
    caller: admin,
    expected: byTimeThenId(channelDeliveryRows),
    exclusive: true,
    shape: 'object',
    rowsOf: field('deliveries'),
  }
  const pageIds = ids('status-page')
  await insertEach(
    statusPages,
    pageIds.map((id, i) => ({
      id,
      slug: `lists-${id}`,
      title: `lists ${i}`,
      groups: [],
      public: false,
      createdAt: new Date(TIED_TIMES[i] ?? 0),
      updatedAt: now,
    })),
  )
  newest('statusPages.list', pageIds, { shape: 'object', rowsOf: field('statusPages') })
  const hookIds = ids('status-page-webhook')
  await insertEach(
    statusPageWebhooks,
    hookIds.map((id, i) => ({
      id,
      statusPageId: pageIds[0] ?? '',
      url: `https://hooks.example.com/lists-${i}`,
      secretSealed: 'v1.sealed',
      origin: 'https://panel.test',
      createdAt: new Date(TIED_TIMES[i] ?? 0),
    })),
  )
  newest('statusPages.webhooks.list', hookIds, {
    input: { statusPageId: pageIds[0] },
    exclusive: true,
    shape: 'object',
    rowsOf: field('webhooks'),
  })

  const windowIds = ids('maintenance')
  await insertEach(
    maintenanceWindows,
    windowIds.map((id, i) => ({
      id,
      title: `lists ${i}`,
      schedule: {
        kind: 'weekly' as const,
        days: ['sun' as const],
        startTime: '03:00',
        durationMinutes: 60,
        timezone: 'UTC',
      },
      endsAt: null,
      createdAt: new Date(TIED_TIMES[i] ?? 0),
      updatedAt: now,
    })),
  )
  newest('maintenance.list', windowIds, { shape: 'object', rowsOf: field('windows') })

  return cases
}
