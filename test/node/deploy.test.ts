import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'

const root = path.resolve(import.meta.dirname, '../..')
const git = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8' }).trim()

describe('npm run deploy', () => {
  it('should deploy with IMAGE_TAG set to the package version and the git commit, never local', () => {
    const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
      version: string
      scripts: Record<string, string>
    }
    expect(pkg.scripts.deploy).toBe('node scripts/deploy.mjs')
    const printed = execFileSync('node', ['scripts/deploy.mjs', '--dry-run'], { cwd: root, encoding: 'utf8' })
    const commands = printed.trim().split('\n')
    expect(commands[0]).toBe('> npm run build:web')
    expect(commands[1]).toBe('> npx wrangler d1 migrations apply DB --remote')
    const tag = commands[2]?.match(/^> npx wrangler deploy --var IMAGE_TAG:(\S+)$/)?.[1]
    const commit = git('rev-parse', '--short=12', 'HEAD')
    expect(tag).toMatch(new RegExp(`^${pkg.version.replaceAll('.', '\\.')}\\+${commit}(\\.dirty)?$`))
    expect(tag?.endsWith('.dirty')).toBe(git('status', '--porcelain', '--untracked-files=no') !== '')
  })
})
