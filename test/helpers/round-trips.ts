import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import type { Env } from '../../src/env'
import worker from '../../src/index'
import { ORIGIN } from './http'

/** What one request cost in storage round trips, as the answer was sent. */
export interface Trips {
  /** Sequential waits on storage, D1 and Durable Objects together: calls in flight at the same time count once. */
  sequential: number
  /** Sequential D1 round trips: a batch, or queries sent together (Promise.all), count once. */
  d1: number
  /** Durable Object calls (each one, concurrent or not). */
  durableObjects: number
  /** The constraint or bookmark each D1 session was opened from, in order. */
  sessions: string[]
  /** Statements sent on the D1 binding itself, outside any session (they go to the primary). */
  outsideSession: number
}

/** One call to storage: when it began and, once settled, when it ended (on one logical clock). */
interface Call {
  kind: 'd1' | 'do'
  start: number
  end: number | null
  /** Sent on the D1 binding itself rather than through a session. */
  outside: number
}

/**
 * How many times the calls had to wait for each other: a call that begins after every earlier one ended is a new
 * sequential round trip, one that begins while another is in flight rides along with it.
 */
function waves(calls: Call[]): number {
  let count = 0
  let busyUntil = -1
  for (const call of [...calls].sort((a, b) => a.start - b.start)) {
    if (call.start > busyUntil) count++
    busyUntil = Math.max(busyUntil, call.end ?? Number.POSITIVE_INFINITY)
  }
  return count
}

class Counter {
  private clock = 0
  private readonly calls: Call[] = []
  readonly sessions: string[] = []

  async track<T>(kind: Call['kind'], run: () => Promise<T>, outside = 0): Promise<T> {
    const call: Call = { kind, start: this.clock++, end: null, outside }
    this.calls.push(call)
    try {
      return await run()
    } finally {
      call.end = this.clock++
    }
  }

  /**
   * The calls that ended before the answer: those the answer waited for. One still in flight was handed to
   * waitUntil (a background write), which the caller does not wait for.
   */
  snapshot(): Trips {
    const waited = this.calls.filter((call) => call.end !== null)
    return {
      sequential: waves(waited),
      d1: waves(waited.filter((call) => call.kind === 'd1')),
      durableObjects: waited.filter((call) => call.kind === 'do').length,
      sessions: [...this.sessions],
      outsideSession: waited.reduce((sum, call) => sum + call.outside, 0),
    }
  }
}

const REAL_STATEMENT = new WeakMap<object, D1PreparedStatement>()

function countedStatement(
  real: D1PreparedStatement,
  counter: Counter,
  outside: boolean,
): D1PreparedStatement {
  const run =
    <K extends 'first' | 'all' | 'run' | 'raw'>(method: K) =>
    (...args: unknown[]) =>
      counter.track(
        'd1',
        () => (real[method] as (...a: unknown[]) => Promise<unknown>)(...args),
        outside ? 1 : 0,
      )
  const statement = {
    bind: (...values: unknown[]) => countedStatement(real.bind(...values), counter, outside),
    first: run('first'),
    all: run('all'),
    run: run('run'),
    raw: run('raw'),
  }
  REAL_STATEMENT.set(statement, real)
  return statement as unknown as D1PreparedStatement
}

const realStatements = (statements: D1PreparedStatement[]) =>
  statements.map((statement) => REAL_STATEMENT.get(statement) ?? statement)

function countedSession(real: D1DatabaseSession, counter: Counter): D1DatabaseSession {
  return {
    prepare: (query: string) => countedStatement(real.prepare(query), counter, false),
    batch: (statements: D1PreparedStatement[]) =>
      counter.track('d1', () => real.batch(realStatements(statements))),
    getBookmark: () => real.getBookmark(),
  } as unknown as D1DatabaseSession
}

function countedDatabase(real: D1Database, counter: Counter): D1Database {
  return {
    prepare: (query: string) => countedStatement(real.prepare(query), counter, true),
    batch: (statements: D1PreparedStatement[]) =>
      counter.track('d1', () => real.batch(realStatements(statements)), statements.length),
    exec: (query: string) => counter.track('d1', () => real.exec(query), 1),
    withSession: (constraintOrBookmark?: string) => {
      counter.sessions.push(constraintOrBookmark ?? 'first-unconstrained')
      return countedSession(real.withSession(constraintOrBookmark), counter)
    },
  } as unknown as D1Database
}

/** A stub whose every method call is counted; `id` and `name` read through. */
function countedStub(real: DurableObjectStub, counter: Counter): DurableObjectStub {
  return new Proxy(real, {
    get(target, key) {
      if (key === 'id' || key === 'name') return Reflect.get(target, key)
      if (typeof key !== 'string' || key === 'then') return undefined
      return (...args: unknown[]) =>
        counter.track('do', async () =>
          (target as unknown as Record<string, (...a: unknown[]) => unknown>)[key]?.(...args),
        )
    },
  })
}

function countedNamespace<T extends object>(real: T, counter: Counter): T {
  return new Proxy(real, {
    get(target, key) {
      const namespace = target as unknown as DurableObjectNamespace
      if (key === 'get') return (id: DurableObjectId) => countedStub(namespace.get(id), counter)
      if (key === 'getByName') return (name: string) => countedStub(namespace.getByName(name), counter)
      const value = Reflect.get(target, key)
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
}

const workerEnv = env as unknown as Env

/** The Worker's own bindings with D1 and every Durable Object namespace counted. */
function countedEnv(counter: Counter): Env {
  return {
    ...workerEnv,
    DB: countedDatabase(workerEnv.DB, counter),
    RATE_LIMITER: countedNamespace(workerEnv.RATE_LIMITER, counter),
    PROBE_MONITOR: countedNamespace(workerEnv.PROBE_MONITOR, counter),
    HEARTBEAT_LEDGER: countedNamespace(workerEnv.HEARTBEAT_LEDGER, counter),
    WATCH_HUB: countedNamespace(workerEnv.WATCH_HUB, counter),
  }
}

/**
 * Runs `work` with counted bindings and reports the round trips made by the time it settled; calls still in
 * flight then (handed to `ctx.waitUntil`) are not counted, and are awaited before this returns.
 */
export async function countDuring<T>(
  work: (env: Env, ctx: ExecutionContext) => Promise<T>,
): Promise<{ result: T; trips: Trips }> {
  const counter = new Counter()
  const ctx = createExecutionContext()
  const result = await work(countedEnv(counter), ctx)
  const trips = counter.snapshot()
  await waitOnExecutionContext(ctx)
  return { result, trips }
}

export interface CountedAnswer {
  status: number
  headers: Headers
  text: string
  trips: Trips
}

/**
 * Sends a request to the Worker's real fetch handler with counted bindings and reports the round trips it made
 * before answering (work handed to waitUntil afterwards is not on the caller's path and is not counted).
 */
export async function countTrips(path: string, init: RequestInit = {}): Promise<CountedAnswer> {
  const { result: response, trips } = await countDuring(async (env, ctx) =>
    worker.fetch(new Request(`${ORIGIN}${path}`, init), env, ctx),
  )
  return { status: response.status, headers: response.headers, text: await response.text(), trips }
}
