import { beforeAll, describe, expect, it } from 'vitest'
import { REPLICA_COPY_MS } from '../src/db/replica-copy'
import { type Caller, ok } from './helpers/http'
import { adminSession } from './helpers/principals'
import { cloneRow, type ListCase, seedLists } from './lists/seed'

// Contract N1: called as the contract calls them (no limit), lists answer every row, however many; paging is
// opt-in. Each list here grows past 100 rows (and past D1's 100 bound parameters, for the lists that read
// more about the rows they list).
const MANY = 123
// Each test seeds or reads well over a hundred rows through every list: more than the default 5 s under load.
const SLOW = 30_000

let admin: Caller
let cases: Record<string, ListCase>

beforeAll(async () => {
  admin = await adminSession()
  cases = await seedLists(admin)
})

const idsOf = (list: ListCase, body: unknown) => list.rowsOf(body).map((row) => String(row.id))

/** Clones the list's first seeded row MANY times, `unique` giving each copy its own unique columns. */
async function grow(
  name: string,
  table: string,
  unique: (i: number) => Record<string, unknown> = () => ({}),
) {
  const list = cases[name] as ListCase
  const copies = Array.from({ length: MANY }, (_, i) => ({ id: crypto.randomUUID(), ...unique(i) }))
  await cloneRow(table, { column: 'id', value: list.expected[0] }, copies)
  return { list, copies: copies.map((copy) => copy.id) }
}

const tag = crypto.randomUUID().slice(0, 8)
const GROWN: [name: string, table: string, unique?: (i: number) => Record<string, unknown>][] = [
  ['probes.list', 'probes'],
  ['customHostnames.list', 'custom_hostnames', (i) => ({ hostname: `many${i}.${tag}.customer.example` })],
  ['domains.list', 'domains', (i) => ({ hostname: `many${i}.${tag}.domains.example` })],
  ['routes.listForSite', 'routes', (i) => ({ listen_port: 30000 + i })],
  ['changelog.releases.list', 'changelog_releases', (i) => ({ version: `98.0.${i}-${tag}` })],
  ['maintenance.list', 'maintenance_windows'],
]

describe('a list called without limit', () => {
  it.each(GROWN)(
    '%s answers every one of more than 100 rows, and limit still pages',
    async (name, table, unique) => {
      const { list, copies } = await grow(name, table, unique)
      const whole = await ok(name, list.input, list.caller)
      const seen = idsOf(list, whole)
      expect(seen.length).toBeGreaterThanOrEqual(MANY + list.expected.length)
      expect(seen).toEqual(expect.arrayContaining([...copies, ...list.expected]))
      if (list.shape === 'object') expect((whole as { nextCursor: string | null }).nextCursor).toBeNull()

      const first = await ok(name, { ...list.input, limit: 50 }, list.caller)
      expect(idsOf(list, first)).toEqual(seen.slice(0, 50))
      const cursor = list.shape === 'object' ? (first as { nextCursor: string }).nextCursor : seen[49]
      expect(cursor).toBe(seen[49])
      const rest = await ok(name, { ...list.input, cursor }, list.caller)
      expect(idsOf(list, rest)).toEqual(seen.slice(50))
    },
    SLOW,
  )

  it(
    'probes.list {} answers every probe of the installation',
    async () => {
      const { copies } = await grow('probes.list', 'probes')
      const all = await ok<{ id: string }[]>('probes.list', {}, admin)
      expect(all.length).toBeGreaterThan(MANY)
      expect(all.map((probe) => probe.id)).toEqual(expect.arrayContaining(copies))
    },
    SLOW,
  )

  it(
    'routes.listForInstance answers every route of the instance',
    async () => {
      const { copies } = await grow('routes.listForInstance', 'routes', (i) => ({ listen_port: 40000 + i }))
      const list = cases['routes.listForInstance'] as ListCase
      const seen = idsOf(list, await ok('routes.listForInstance', list.input, admin))
      expect(seen).toEqual(expect.arrayContaining(copies))
    },
    SLOW,
  )

  it(
    'every list answers what one page of 500 holds; a log its newest 100 and a nextCursor',
    async () => {
      // The tests above grew the tables by SQL, past the commit path that drops the isolate's 2 s read copies.
      await new Promise((resolve) => setTimeout(resolve, REPLICA_COPY_MS + 100))
      const LOGS = [
        'audit.list',
        'jobs.list',
        'settings.notifications.deliveries',
        'notifications.channels.deliveries',
      ]
      for (const [name, list] of Object.entries(cases)) {
        const whole = idsOf(list, await ok(name, list.input, list.caller))
        const paged = idsOf(list, await ok(name, { ...list.input, limit: 500 }, list.caller))
        if (LOGS.includes(name)) expect(whole, name).toEqual(paged.slice(0, 100))
        else expect(whole, name).toEqual(paged)
      }
      const { list } = await grow('audit.list', 'audit_log', () => ({ id: undefined }))
      const log = await ok<{ entries: unknown[]; nextCursor: string | null }>('audit.list', list.input, admin)
      expect(log.entries).toHaveLength(100)
      expect(log.nextCursor).not.toBeNull()
    },
    SLOW,
  )
})
