// npm run deploy: builds the web interface, applies the remote D1 migrations, then `wrangler deploy` with
// IMAGE_TAG set to `<package version>+<git commit>` (`.dirty` appended when the worktree has uncommitted
// changes), so /api/v1/meta/version and the feed's imageTag name what runs, never `local`.
// `--dry-run` prints the commands instead of running them.
import { execFileSync, spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import path from 'node:path'

const root = path.resolve(import.meta.dirname, '..')
const dryRun = process.argv.includes('--dry-run')
const env = { ...process.env, WRANGLER_SEND_METRICS: 'false' }

function git(...args) {
  try {
    return execFileSync('git', args, {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    }).trim()
  } catch (error) {
    console.error(`npm run deploy needs a git checkout to tag the image (git ${args.join(' ')} failed):`)
    console.error(String(error.stderr ?? error.message).trim())
    process.exit(1)
  }
}

const { version } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'))
const commit = git('rev-parse', '--short=12', 'HEAD')
const dirty = git('status', '--porcelain', '--untracked-files=no') !== ''
const imageTag = `${version}+${commit}${dirty ? '.dirty' : ''}`

const steps = [
  ['npm', ['run', 'build:web']],
  ['npx', ['wrangler', 'd1', 'migrations', 'apply', 'DB', '--remote']],
  ['npx', ['wrangler', 'deploy', '--var', `IMAGE_TAG:${imageTag}`]],
]

for (const [command, args] of steps) {
  console.log(`> ${command} ${args.join(' ')}`)
  if (dryRun) continue
  const result = spawnSync(command, args, { cwd: root, env, stdio: 'inherit' })
  if (result.status !== 0) process.exit(result.status ?? 1)
}
