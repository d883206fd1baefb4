import { type SQL, sql } from 'drizzle-orm'
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core'
import type { Db } from '../db/client'
import { accounts } from '../db/schema/accounts'
import { apiTokens, users } from '../db/schema/auth'
import { changelogReleases, changelogWebhookTargets } from '../db/schema/changelog'
import { channels } from '../db/schema/channels'
import { customHostnames } from '../db/schema/custom-hostnames'
import { dnsZones } from '../db/schema/dns-servers'
import { domains } from '../db/schema/domains'
import { instances, nodes, sites } from '../db/schema/fleet'
import { probes } from '../db/schema/probes'
import { routes } from '../db/schema/routes'
import { statusPageIncidents, statusPages } from '../db/schema/status-pages'

// The readable names of an audit page's actors and targets, looked up when the page is read: one batch of one
// query per kind of object the page mentions. An object removed since keeps the name its entry's detail recorded
// (`name`, `hostname` or `email`), if any.

type Source =
  | 'user'
  | 'token'
  | 'node'
  | 'instance'
  | 'site'
  | 'domain'
  | 'customHostname'
  | 'probe'
  | 'zone'
  | 'account'
  | 'release'
  | 'webhook'
  | 'route'
  | 'channel'
  | 'statusPage'
  | 'incident'

/** Where the target of each action family (the action's first word) may live; some name a neighbour's id. */
const TARGET_SOURCES: Readonly<Record<string, readonly Source[]>> = {
  user: ['user'],
  auth: ['user'],
  token: ['token'],
  'site-token': ['token'],
  node: ['node'],
  nameserver: ['node'],
  instance: ['instance'],
  site: ['site'],
  // domain.test-credentials names the account it tested.
  domain: ['domain', 'account'],
  // custom-hostname.settings-set names the site.
  'custom-hostname': ['customHostname', 'site'],
  probe: ['probe'],
  zone: ['zone'],
  // account.set-default names the node, instance or domain the default applies to.
  account: ['account', 'node', 'instance', 'domain'],
  changelog: ['release', 'webhook'],
  route: ['route'],
  'notification-channel': ['channel'],
  // status-page.incident-create|update name the incident.
  'status-page': ['statusPage', 'incident'],
}

const PRINCIPAL_SOURCES: Readonly<Record<string, Source>> = {
  session: 'user',
  token: 'token',
  'site-token': 'token',
}

// The ids travel as one JSON parameter, so a page of any size stays within D1's bound-parameter limit.
const idIn = (column: SQLiteColumn, ids: readonly string[]): SQL =>
  sql`${column} in (select value from json_each(${JSON.stringify(ids)}))`

function lookup(db: Db, source: Source, ids: readonly string[]) {
  switch (source) {
    case 'user':
      return db.select({ id: users.id, name: users.email }).from(users).where(idIn(users.id, ids))
    case 'token':
      return db
        .select({ id: apiTokens.id, name: apiTokens.name })
        .from(apiTokens)
        .where(idIn(apiTokens.id, ids))
    case 'node':
      return db.select({ id: nodes.id, name: nodes.name }).from(nodes).where(idIn(nodes.id, ids))
    case 'instance':
      return db
        .select({ id: instances.id, name: instances.name })
        .from(instances)
        .where(idIn(instances.id, ids))
    case 'site':
      return db.select({ id: sites.id, name: sites.name }).from(sites).where(idIn(sites.id, ids))
    case 'domain':
      return db.select({ id: domains.id, name: domains.hostname }).from(domains).where(idIn(domains.id, ids))
    case 'customHostname':
      return db
        .select({ id: customHostnames.id, name: customHostnames.hostname })
        .from(customHostnames)
        .where(idIn(customHostnames.id, ids))
    case 'probe':
      return db.select({ id: probes.id, name: probes.name }).from(probes).where(idIn(probes.id, ids))
    case 'zone':
      return db.select({ id: dnsZones.id, name: dnsZones.name }).from(dnsZones).where(idIn(dnsZones.id, ids))
    case 'account':
      return db.select({ id: accounts.id, name: accounts.name }).from(accounts).where(idIn(accounts.id, ids))
    case 'release':
      return db
        .select({ id: changelogReleases.id, name: changelogReleases.version })
        .from(changelogReleases)
        .where(idIn(changelogReleases.id, ids))
    case 'webhook':
      // Only the host: a webhook URL's path and query may carry a secret.
      return db
        .select({ id: changelogWebhookTargets.id, name: sql<string>`${changelogWebhookTargets.url}` })
        .from(changelogWebhookTargets)
        .where(idIn(changelogWebhookTargets.id, ids))
    case 'route':
      return db
        .select({
          id: routes.id,
          name: sql<string>`coalesce(${routes.hostname}, ${routes.proto} || ' port ' || ${routes.listenPort})`,
        })
        .from(routes)
        .where(idIn(routes.id, ids))
    case 'channel':
      return db.select({ id: channels.id, name: channels.name }).from(channels).where(idIn(channels.id, ids))
    case 'statusPage':
      return db
        .select({ id: statusPages.id, name: statusPages.title })
        .from(statusPages)
        .where(idIn(statusPages.id, ids))
    case 'incident':
      return db
        .select({ id: statusPageIncidents.id, name: statusPageIncidents.title })
        .from(statusPageIncidents)
        .where(idIn(statusPageIncidents.id, ids))
  }
}

export interface NamedEntry {
  action: string
  principalKind: string
  principalId: string | null
  targetId: string | null
  detail: Record<string, unknown> | null
}

export interface EntryNames {
  actorName: string | null
  targetName: string | null
}

function hostOf(url: string): string {
  try {
    return new URL(url).host
  } catch {
    return 'webhook'
  }
}

function recordedName(detail: Record<string, unknown> | null): string | null {
  for (const key of ['name', 'hostname', 'email']) {
    const value = detail?.[key]
    if (typeof value === 'string' && value !== '') return value
  }
  return null
}

/** The actor's and the target's names for each entry, in the entries' order. */
export async function auditNames(db: Db, entries: readonly NamedEntry[]): Promise<EntryNames[]> {
  const wanted = new Map<Source, Set<string>>()
  const want = (source: Source, id: string) => wanted.set(source, (wanted.get(source) ?? new Set()).add(id))
  for (const entry of entries) {
    const actor = PRINCIPAL_SOURCES[entry.principalKind]
    if (actor && entry.principalId) want(actor, entry.principalId)
    const family = entry.action.split('.')[0] ?? ''
    if (entry.targetId) for (const source of TARGET_SOURCES[family] ?? []) want(source, entry.targetId)
  }
  const sources = [...wanted.keys()]
  const [first, ...rest] = sources.map((source) => lookup(db, source, [...(wanted.get(source) ?? [])]))
  const results = first ? await db.batch([first, ...rest]) : []
  const names = new Map<Source, Map<string, string>>()
  sources.forEach((source, index) => {
    const rows = (results[index] ?? []) as { id: string; name: string | null }[]
    names.set(
      source,
      new Map(
        rows
          .filter((row) => row.name !== null)
          .map((row) => [row.id, source === 'webhook' ? hostOf(row.name ?? '') : (row.name ?? '')]),
      ),
    )
  })
  const nameIn = (source: Source, id: string) => names.get(source)?.get(id) ?? null
  return entries.map((entry) => {
    const actor = PRINCIPAL_SOURCES[entry.principalKind]
    const family = entry.action.split('.')[0] ?? ''
    const target = entry.targetId
    const found = target
      ? (TARGET_SOURCES[family] ?? []).map((source) => nameIn(source, target)).find((name) => name !== null)
      : undefined
    return {
      actorName: actor && entry.principalId ? nameIn(actor, entry.principalId) : null,
      targetName: target ? (found ?? recordedName(entry.detail)) : null,
    }
  })
}
