import { env } from 'cloudflare:workers'
import { vi } from 'vitest'

// Counts the D1 rows a call reads (meta.rows_read), the figure D1 bills. Procedures reach the binding through a
// session, which hands its calls to the binding while one of its methods is spied on (binding-spies.ts).
// drizzle reads through stmt.raw(), whose answer drops meta: a select's raw() also runs .all() for its meta
// (a select changes nothing, so running it twice reads twice what one run reads, and only one run is counted).

const database = (env as unknown as { DB: D1Database }).DB

/** Counts the rows read through the DB binding until `stop()`, which answers the total. */
export function countRowsRead(): { stop: () => number } {
  let rows = 0
  const unwrapped = new WeakMap<object, D1PreparedStatement>()
  const add = (result: { meta?: { rows_read?: number } }) => {
    rows += result.meta?.rows_read ?? 0
  }
  const isSelect = (query: string) => /^\s*(with|select)\b/i.test(query)
  const wrap = (statement: D1PreparedStatement, query: string): D1PreparedStatement => {
    const wrapped = new Proxy(statement, {
      get(target, property) {
        if (property === 'bind') return (...values: unknown[]) => wrap(target.bind(...values), query)
        if (property === 'raw')
          return async (options?: { columnNames?: boolean }) => {
            if (isSelect(query)) add(await target.all())
            else return target.raw(options as { columnNames: true })
            return target.raw(options as { columnNames: true })
          }
        if (property === 'first')
          return async (column?: string) => {
            add(await target.all())
            return column === undefined ? target.first() : target.first(column)
          }
        if (property === 'all' || property === 'run')
          return async () => {
            const result = await target[property]()
            add(result)
            return result
          }
        const value: unknown = Reflect.get(target, property)
        return typeof value === 'function' ? value.bind(target) : value
      },
    })
    unwrapped.set(wrapped, statement)
    return wrapped
  }
  const prepare = database.prepare.bind(database)
  const batch = database.batch.bind(database)
  const prepareSpy = vi.spyOn(database, 'prepare').mockImplementation((query) => wrap(prepare(query), query))
  const batchSpy = vi.spyOn(database, 'batch').mockImplementation(async (statements) => {
    const results = await batch(statements.map((statement) => unwrapped.get(statement) ?? statement))
    for (const result of results) add(result)
    return results
  })
  return {
    stop() {
      prepareSpy.mockRestore()
      batchSpy.mockRestore()
      return rows
    },
  }
}
