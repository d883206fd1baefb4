import { env } from 'cloudflare:workers'
import { vi } from 'vitest'

// Tests stand in for a failing D1, count its statements or slip a rival request in before a batch by spying on
// the DB binding's own methods. Procedures read and write through a session of the binding (withSession), so
// while any of those methods is spied on, a session hands its calls to the binding, where the spy sees them.
const database = (env as unknown as { DB: D1Database }).DB
const SPIED = ['prepare', 'batch', 'exec'] as const
const PATCHED = Symbol.for('hosting-panel.binding-spies')

// Setup files may run more than once: the binding is patched once.
if (!(PATCHED in database)) {
  const withSession = database.withSession.bind(database)
  Object.defineProperty(database, PATCHED, { value: true })
  database.withSession = (constraintOrBookmark) => {
    const session = withSession(constraintOrBookmark)
    const spied = () => SPIED.some((method) => vi.isMockFunction(database[method]))
    return new Proxy(session, {
      get(target, property) {
        const own = SPIED.includes(property as (typeof SPIED)[number]) && spied() ? database : target
        const value: unknown = Reflect.get(own, property)
        return typeof value === 'function' ? value.bind(own) : value
      },
    })
  }
}
