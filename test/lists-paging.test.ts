import { env } from 'cloudflare:workers'
import { beforeAll, describe, expect, it } from 'vitest'
import type { AnyProcedure } from '../src/rpc/define'
import { procedures } from '../src/rpc/registry'
import { type Caller, call, ok } from './helpers/http'
import { adminSession } from './helpers/principals'
import { FUTURE, type ListCase, seedLists } from './lists/seed'

// A list is a query named list or listFor…, or one answering an array or carrying nextCursor: a new list, however
// named, fails here until it pages and has a case in its area's ./lists/seed-*.ts.
const NOT_LISTS: Record<string, string> = {
  'probes.history': "a window of one probe's results, bounded by its hours (1 to 2160)",
}
function isList(name: string, proc: AnyProcedure): boolean {
  if (proc.kind !== 'query' || proc.stream || name in NOT_LISTS) return false
  const last = name.split('.').at(-1) ?? ''
  const output = proc.output as unknown as { def: { type: string }; shape?: Record<string, unknown> }
  return (
    last === 'list' ||
    last.startsWith('listFor') ||
    output.def.type === 'array' ||
    (output.def.type === 'object' && 'nextCursor' in (output.shape ?? {}))
  )
}
const listNames = [...procedures].filter(([name, proc]) => isList(name, proc)).map(([name]) => name)

let admin: Caller
let cases: Record<string, ListCase>

beforeAll(async () => {
  admin = await adminSession()
  cases = await seedLists(admin)
})

const idOf = (list: ListCase, row: Record<string, unknown>) => (list.idOf ? list.idOf(row) : String(row.id))

/** Walks a list page by page, following nextCursor or the last row's id; asserts each page's own promises. */
async function walk(list: ListCase, name: string, limit: number): Promise<string[]> {
  const seen: string[] = []
  let cursor: string | undefined
  for (let page = 0; page < 200; page++) {
    const body = await ok(
      name,
      { ...list.input, limit, ...(cursor === undefined ? {} : { cursor }) },
      list.caller,
    )
    const rows = list.rowsOf(body) as unknown as Record<string, unknown>[]
    expect(rows.length).toBeLessThanOrEqual(limit)
    const last = rows.at(-1)
    seen.push(...rows.map((row) => idOf(list, row)))
    if (list.shape === 'object') {
      const next = (body as { nextCursor: string | null }).nextCursor
      if (next === null) return seen
      expect(rows).toHaveLength(limit)
      expect(next).toBe(last && idOf(list, last))
      cursor = next
    } else {
      if (rows.length < limit || !last) return seen
      cursor = idOf(list, last)
    }
  }
  throw new Error(`${name} never reached its end`)
}

const workerDb = () => (env as unknown as { DB: D1Database }).DB

/** Copies of the seeded base probe under new ids and one name, all created at `createdAt`, in `ids` order. */
async function copyProbe(ids: string[], name: string, createdAt: number): Promise<void> {
  const [base] = await ok<{ id: string }[]>(
    'probes.list',
    { ...cases['probes.list']?.input, limit: 1 },
    admin,
  )
  const db = workerDb()
  await db.batch(
    ids.map((id) =>
      db
        .prepare(
          `insert into probes select ?, ?, type, target_kind, target_id, target, config, notify_config,
           webhook_secret, null, state, enabled, consecutive_failures, last_result, last_checked_at, last_changed_at,
           null, archived_at, ?, updated_at, monitor_version, locations from probes where id = ?`,
        )
        .bind(id, name, createdAt, base?.id),
    ),
  )
}

describe('every list procedure pages', () => {
  it('finds the lists in the registry, and every one of them has a paging case here', () => {
    expect(listNames.length).toBeGreaterThanOrEqual(19)
    expect(listNames).toContain('accounts.zones')
    expect(listNames).toContain('changelog.webhooks.deliveries')
    for (const name of listNames) expect(Object.keys(cases), `${name} has no paging case`).toContain(name)
  })

  it('refuses a limit of 0 or 501 and a fraction, naming limit, and a cursor naming no row, naming cursor', async () => {
    for (const name of listNames) {
      const list = cases[name]
      if (!list) continue
      for (const limit of [0, 501, 2.5]) {
        const answer = await call<{ issues?: { path: string }[] }>(
          name,
          { ...list.input, limit },
          list.caller,
        )
        expect(answer.status, `${name} limit ${limit}`).toBe(400)
        expect(
          answer.body.issues?.map((issue) => issue.path),
          name,
        ).toContain('limit')
      }
      const cursor = name === 'audit.list' ? 'not-a-number' : `gone-${crypto.randomUUID()}`
      const answer = await call<{ issues?: { path: string }[] }>(name, { ...list.input, cursor }, list.caller)
      expect(answer.status, `${name} cursor`).toBe(400)
      expect(
        answer.body.issues?.map((issue) => issue.path),
        name,
      ).toContain('cursor')
    }
  })

  it('walks seven seeded rows three at a time: no row twice, none missed, in the list order, and ends', async () => {
    for (const name of listNames) {
      const list = cases[name]
      if (!list) continue
      const seen = await walk(list, name, 3)
      expect(new Set(seen).size, `${name} repeated a row`).toBe(seen.length)
      const whole = list.rowsOf(await ok(name, { ...list.input, limit: 500 }, list.caller))
      expect(seen, `${name} paged differently from one page`).toEqual(
        whole.map((row) => idOf(list, row as unknown as Record<string, unknown>)),
      )
      const mine = new Set(list.expected)
      expect(list.exclusive ? seen : seen.filter((id) => mine.has(id)), `${name} order`).toEqual(
        list.expected,
      )
    }
  })
})

describe('many rows created in the same millisecond', () => {
  it('pages 25 probes sharing one creation time without a skip or a repeat, later inserts first', async () => {
    const tag = crypto.randomUUID().slice(0, 8)
    const ids = Array.from({ length: 25 }, (_, i) => `same-ms-${tag}-${String(i).padStart(2, '0')}`)
    await copyProbe(ids, `same ms ${tag}`, FUTURE + 10)
    for (const limit of [1, 4, 7]) {
      const list: ListCase = {
        ...(cases['probes.list'] as ListCase),
        input: { search: `same ms ${tag}` },
        expected: [],
      }
      const seen = await walk(list, 'probes.list', limit)
      expect(seen).toEqual([...ids].reverse())
    }
  })

  it('pages a site’s hostnames sharing one creation time through nextCursor', async () => {
    const list = cases['customHostnames.list'] as ListCase
    const db = workerDb()
    await db
      .prepare('update custom_hostnames set created_at = ? where site_id = ?')
      .bind(FUTURE, list.input.siteId)
      .run()
    const inserted = await db
      .prepare('select id from custom_hostnames where site_id = ? order by rowid desc')
      .bind(list.input.siteId)
      .all<{ id: string }>()
    for (const limit of [1, 2, 6]) {
      expect(await walk(list, 'customHostnames.list', limit)).toEqual(inserted.results.map((row) => row.id))
    }
  })
})
