import { execFileSync } from 'node:child_process'
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'

const root = path.resolve(import.meta.dirname, '../..')

describe('migrations', () => {
  it('should match the drizzle schema in src/db exactly', () => {
    // drizzle-kit resolves --out relative to the working directory, so the scratch copy lives inside the repo.
    const out = mkdtempSync(path.join(root, 'node_modules/.cache-migrations-'))
    cpSync(path.join(root, 'migrations'), out, { recursive: true })
    const before = readdirSync(out).filter((f) => f.endsWith('.sql'))
    const log = execFileSync(
      path.join(root, 'node_modules/.bin/drizzle-kit'),
      ['generate', '--dialect', 'sqlite', '--schema', './src/db/schema', '--out', path.relative(root, out)],
      { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
    )
    const after = readdirSync(out).filter((f) => f.endsWith('.sql'))
    rmSync(out, { recursive: true, force: true })
    expect(after, `src/db changed without a migration; run npm run db:generate\n${log}`).toEqual(before)
  }, 60_000)
})
