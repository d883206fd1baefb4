import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { applyMigrations } from '../ui/wrangler-dev.ts'

// The scratch databases of the UI suite and of the node tests that start `wrangler dev` are migrated by
// applyMigrations (test/ui/wrangler-dev.ts) in one local runtime, not by `wrangler d1 migrations apply`, which
// starts one per migration. Both must leave the same database where `wrangler dev --persist-to` reads it.

const root = path.join(import.meta.dirname, '../..')
const wrangler = path.join(root, 'node_modules/.bin/wrangler')
const SQLITE = 'apt-get install -y --no-install-recommends sqlite3'

let scratch = ''
let fast = ''
let reference = ''

function runWrangler(args: string[]): Promise<string> {
  const child = spawn(wrangler, args, {
    cwd: root,
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString()
  })
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString()
  })
  return new Promise((resolve, reject) =>
    child.once('exit', (code) => (code === 0 ? resolve(output) : reject(new Error(output)))),
  )
}

/** The D1 database file under a --persist-to directory. */
function databaseFile(persistTo: string): string {
  const folder = path.join(persistTo, 'v3/d1/miniflare-D1DatabaseObject')
  const files = readdirSync(folder).filter((file) => file.endsWith('.sqlite') && file !== 'metadata.sqlite')
  expect(files, `the databases in ${folder}`).toHaveLength(1)
  return path.join(folder, files[0] ?? '')
}

/** sqlite3's .dump of the database, with the d1_migrations rows (their applied_at differs) apart. */
function dump(persistTo: string): { schemaAndRows: string; migrations: string } {
  const file = databaseFile(persistTo)
  const run = (sql: string) => spawnSync('sqlite3', [file, sql], { encoding: 'utf8' }).stdout
  return {
    schemaAndRows: run('.dump')
      .split('\n')
      .filter((line) => !line.startsWith('INSERT INTO d1_migrations'))
      .join('\n'),
    migrations: run('SELECT id, name FROM d1_migrations ORDER BY id'),
  }
}

beforeAll(async () => {
  if (spawnSync('sh', ['-c', 'command -v sqlite3']).status !== 0)
    throw new Error(`sqlite3 is missing: ${SQLITE}`)
  scratch = mkdtempSync(path.join(tmpdir(), 'panel-scratch-migrations-'))
  fast = path.join(scratch, 'fast')
  reference = path.join(scratch, 'wrangler')
  await Promise.all([
    applyMigrations(fast),
    runWrangler(['d1', 'migrations', 'apply', 'DB', '--local', '--persist-to', reference]),
  ])
}, 300_000)

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true })
})

describe('applyMigrations', () => {
  it('should leave the tables, indexes, triggers, rows and d1_migrations that wrangler d1 migrations apply leaves', () => {
    const ours = dump(fast)
    const wranglers = dump(reference)
    expect(ours.schemaAndRows).toContain('CREATE TABLE')
    expect(ours.schemaAndRows).toBe(wranglers.schemaAndRows)
    expect(ours.migrations.trim().split('\n')).toHaveLength(
      readdirSync(path.join(root, 'migrations')).filter((file) => file.endsWith('.sql')).length,
    )
    expect(ours.migrations).toBe(wranglers.migrations)
  })

  it('should leave nothing for wrangler to apply, in the database wrangler dev --persist-to opens', async () => {
    const listed = await runWrangler(['d1', 'migrations', 'list', 'DB', '--local', '--persist-to', fast])
    expect(listed).toContain('No migrations to apply')
  }, 120_000)
})
