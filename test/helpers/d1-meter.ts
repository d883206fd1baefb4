import { env } from 'cloudflare:workers'
import { vi } from 'vitest'

/** One statement the Worker ran and the rows D1 says it read. */
export interface MeteredStatement {
  sql: string
  rowsRead: number
}

// drizzle's D1 driver reads through `raw()`, whose answer drops D1's meta: the meter reads the meta of a select
// by running it once more with `all()` (a read twice changes nothing), and runs any other `raw()` (a write with
// `returning`) as `all()` alone, its rows turned into arrays.
const sqlOf = new WeakMap<D1PreparedStatement, string>()

function metered(statement: D1PreparedStatement, sql: string, seen: MeteredStatement[]): D1PreparedStatement {
  sqlOf.set(statement, sql)
  const record = (meta: D1Meta | undefined) => seen.push({ sql, rowsRead: meta?.rows_read ?? 0 })
  const bind = statement.bind.bind(statement)
  const all = statement.all.bind(statement)
  const run = statement.run.bind(statement)
  const raw = statement.raw.bind(statement) as () => Promise<unknown[][]>
  const read = /^\s*(select|with)\b/i.test(sql)
  return Object.assign(statement, {
    bind: (...values: unknown[]) => metered(bind(...values), sql, seen),
    async all() {
      const result = await all()
      record(result.meta)
      return result
    },
    async run() {
      const result = await run()
      record(result.meta)
      return result
    },
    async first(column?: string) {
      const result = await all<Record<string, unknown>>()
      record(result.meta)
      const row = result.results[0]
      return row === undefined ? null : column ? row[column] : row
    },
    async raw() {
      if (read) {
        const rows = await raw()
        record((await all()).meta)
        return rows
      }
      const result = await all<Record<string, unknown>>()
      record(result.meta)
      return result.results.map((row) => Object.values(row))
    },
  }) as D1PreparedStatement
}

/**
 * Counts, from now until `stop()`, every statement the Worker runs on its D1 binding (sessions included: the
 * binding spies hand their calls to the binding) with the rows D1 reports it read.
 */
export function meterD1() {
  const database = (env as unknown as { DB: D1Database }).DB
  const seen: MeteredStatement[] = []
  const prepare = database.prepare.bind(database)
  const batch = database.batch.bind(database)
  const prepareSpy = vi
    .spyOn(database, 'prepare')
    .mockImplementation((sql: string) => metered(prepare(sql), sql, seen))
  const batchSpy = vi.spyOn(database, 'batch').mockImplementation(async (statements) => {
    const results = await batch(statements)
    results.forEach((result, i) => {
      seen.push({
        sql: sqlOf.get(statements[i] as D1PreparedStatement) ?? '?',
        rowsRead: result.meta.rows_read,
      })
    })
    return results
  })
  return {
    statements: seen,
    rowsRead: (keep: (statement: MeteredStatement) => boolean = () => true) =>
      seen.filter(keep).reduce((total, statement) => total + statement.rowsRead, 0),
    reset: () => {
      seen.length = 0
    },
    stop: () => {
      prepareSpy.mockRestore()
      batchSpy.mockRestore()
    },
  }
}

/** Counts the rows read through the DB binding until `stop()`, which answers the total. */
export function countRowsRead(): { stop: () => number } {
  const meter = meterD1()
  return {
    stop() {
      meter.stop()
      return meter.rowsRead()
    },
  }
}
