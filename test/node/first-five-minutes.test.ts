import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { applyMigrations, WranglerDev } from '../ui/wrangler-dev.ts'

// The README's first five minutes, run as a newcomer runs them: its marked shell blocks, in order, in bash, against
// a fresh panel (`wrangler dev` on a scratch database, as test/ui starts it), with the two things the reader
// replaces replaced: the address `npm start` prints and the admin password it printed.

const root = path.join(import.meta.dirname, '../..')
const MARK = '<!-- first-five-minutes'
const README_ADDRESS = 'http://127.0.0.1:8787'
const PASSWORD_PLACEHOLDER = '<printed password>'
const ADMIN = { email: 'admin@localhost', password: 'five-minutes-password-123' }
const TOOLS = 'apt-get install -y --no-install-recommends curl jq'

/** The ```sh blocks that follow a first-five-minutes mark, in the README's order. */
function markedBlocks(readme: string): string[] {
  const blocks: string[] = []
  for (const part of readme.split(MARK).slice(1)) {
    const block = part.match(/^[^\n]*-->\s*\n```sh\n([\s\S]*?)\n```/)?.[1]
    if (block === undefined) throw new Error(`a ${MARK} mark is not followed by a sh block`)
    blocks.push(block)
  }
  return blocks
}

let dev: WranglerDev | undefined
let scratch = ''

beforeAll(async () => {
  for (const tool of ['bash', 'curl', 'jq'])
    if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0)
      throw new Error(`${tool} is missing: ${TOOLS} (the README's first five minutes use it)`)
  const assets = path.join(root, 'web/dist')
  if (!existsSync(path.join(assets, 'index.html')))
    throw new Error('web/dist is missing: run `npm run build:web` (npm test does it first)')
  scratch = mkdtempSync(path.join(tmpdir(), 'panel-five-minutes-'))
  const started = performance.now()
  const took = (what: string) => () =>
    console.log(`first five minutes: ${what} after ${((performance.now() - started) / 1000).toFixed(1)} s`)
  // Side by side, as test/ui does: wrangler dev needs the database only at the first call, and the two wrangler
  // processes take a minute or more each on a busy 2-core machine (the migrations alone 115 s at load 15).
  await Promise.all([
    applyMigrations(scratch).then(took('migrations applied')),
    WranglerDev.start({
      persistTo: scratch,
      assets,
      // Every var a developer's .dev.vars may hold, so theirs never leaks in; nothing here reaches a resolver.
      vars: {
        SECRETS_KEY: Buffer.alloc(32, 5).toString('base64url'),
        SECRETS_KEY_PREVIOUS: '',
        BOOTSTRAP_ADMIN_EMAIL: ADMIN.email,
        BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password,
        ENVIRONMENT: 'development',
        DOH_RESOLVER_URL: 'http://127.0.0.1:9/dns-query',
        IMAGE_TAG: 'five-minutes',
        ALERT_EMAIL_FROM: 'alerts@five-minutes.test',
      },
    }).then((running) => {
      dev = running
      took('wrangler dev answered')()
    }),
  ])
}, 480_000)

afterAll(async () => {
  await dev?.stop()
  if (scratch) rmSync(scratch, { recursive: true, force: true })
}, 30_000)

describe("the README's first five minutes", () => {
  it('should run as written against a fresh panel: a token, a node, an instance, a site, a published release', () => {
    const url = dev?.url ?? ''
    const blocks = markedBlocks(readFileSync(path.join(root, 'README.md'), 'utf8'))
    expect(blocks.length).toBeGreaterThanOrEqual(2)
    const script = blocks
      .join('\n')
      .replaceAll(README_ADDRESS, url)
      .replaceAll(PASSWORD_PLACEHOLDER, ADMIN.password)
    expect(script).not.toContain('8787')
    // What the blocks leave behind, for the checks below (not part of what the reader runs).
    const epilogue =
      '\necho "kept: token=$(printf %s "$T" | cut -c1-4) node=$NODE instance=$INSTANCE release=$RELEASE"\n'
    const run = spawnSync('bash', ['-e', '-o', 'pipefail', '-c', script + epilogue], {
      encoding: 'utf8',
      timeout: 60_000,
    })
    const output = `${run.stdout}\n${run.stderr}`
    expect(run.status, output).toBe(0)
    expect(output).not.toContain('urn:hosting-panel:problem:')
    expect(output).toMatch(/kept: token=pat_ node=\S+ instance=\S+ release=\S+/)
    expect(output).not.toMatch(/kept:.*=null/)
    expect(output).toContain('"name":"shop"')
    expect(output).toMatch(/"action":"site\.create"/)
    // The public feed, last: 200 with its ETag, holding the release just published.
    expect(output).toMatch(/HTTP\/1\.1 200[\s\S]*etag: "[^"]+"[\s\S]*"title":"First release"/i)
  }, 90_000)
})
