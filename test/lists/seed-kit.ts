import { env } from 'cloudflare:workers'
import type { SQLiteTable } from 'drizzle-orm/sqlite-core'
import { db } from '../../src/db/client'
import type { Env } from '../../src/env'
import type { SiteFixture } from '../custom-hostnames/fixture'
import type { Caller } from '../helpers/http'

// The shared parts of the list seeders (seed-*.ts), which test/lists/seed.ts runs in turn.

export const workerEnv = env as unknown as Env
const d = () => db(workerEnv.DB)

/** Far enough ahead that seeded rows are the newest of any list. */
export const FUTURE = Date.UTC(2100, 0, 1)

/**
 * Seven rows' creation times in insertion order: four share one millisecond, two another, so a page of three
 * ends inside a tie. Newest first they run 5, 4, 3, 2, 1, 6, 0 (a later insert first on a tie).
 */
export const TIED_TIMES = [1, 2, 2, 2, 2, 3, 1].map((n) => FUTURE + n)

/** Insertion indexes (of rows created at `times`) in newest-first order, later inserts first on a tie. */
function newestFirstOrder(times: readonly number[]): number[] {
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

export const asArray = (body: unknown) => body as { id: string }[]
export const field = (key: string) => (body: unknown) => (body as Record<string, { id: string }[]>)[key] ?? []

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
export async function insertEach<T extends SQLiteTable>(
  table: T,
  rows: T['$inferInsert'] | T['$inferInsert'][],
) {
  const all = Array.isArray(rows) ? rows : [rows]
  const [first, ...rest] = all.map((row) => d().insert(table).values(row))
  if (first) await d().batch([first, ...rest])
}

export const ids = (_what: string) => TIED_TIMES.map(() => crypto.randomUUID())
export const inOrder = (rows: readonly string[], order: readonly number[]) => order.map((i) => rows[i] ?? '')
export const tiedOrder = newestFirstOrder(TIED_TIMES)

/** What every area's seeder shares: the caller, one site, one clock, one tag, and the table of cases it fills. */
export interface SeedContext {
  admin: Caller
  site: SiteFixture
  now: Date
  /** Keeps this run's names apart from other runs' rows. */
  tag: string
  cases: Record<string, ListCase>
  /** Adds a list whose rows were created at TIED_TIMES and page newest first. */
  newest(name: string, rows: string[], rest: Partial<ListCase> & Pick<ListCase, 'rowsOf' | 'shape'>): void
}
