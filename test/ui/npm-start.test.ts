import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freePort } from '../../node-agent/testing/harness.ts'
import { SESSION_COOKIE } from '../../src/auth/session-cookie.ts'
import { createClient } from '../../src/client/index.ts'

// `npm start` as a newcomer runs it: in a fresh copy of this checkout (what git tracks plus untracked files it
// does not ignore, so never the developer's .dev.vars, .wrangler/state or web/dist), with what `npm install`
// leaves: node_modules (linked) and the built client (copied; the UI suite needs it anyway). An http probe created with the default interval must go `up` by itself: nothing here calls a
// scheduled URL, so the minute cron that `npm start` fires is what runs its check.

const root = path.join(import.meta.dirname, '../..')
const START_TIMEOUT_MS = 180_000
const UP_WITHIN_MS = 120_000

let scratch = ''
let port = 0
let start: ChildProcess | null = null
let output = ''
let target: Server | null = null

/** The files a fresh clone of this checkout would have, with its uncommitted changes. */
function copyCheckout(to: string): void {
  const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: root,
    encoding: 'utf8',
  })
  for (const file of new Set(listed.split('\0').filter(Boolean))) {
    const from = path.join(root, file)
    if (!existsSync(from)) continue
    mkdirSync(path.dirname(path.join(to, file)), { recursive: true })
    copyFileSync(from, path.join(to, file))
  }
  symlinkSync(path.join(root, 'node_modules'), path.join(to, 'node_modules'), 'dir')
  cpSync(path.join(root, 'client/dist'), path.join(to, 'client/dist'), { recursive: true })
}

/** Resolves with npm start's stdout once it printed the banner (after wrangler said it is ready). */
async function untilBanner(): Promise<string> {
  const deadline = Date.now() + START_TIMEOUT_MS
  while (Date.now() < deadline) {
    if (start?.exitCode !== null) throw new Error(`npm start exited:\n${output}`)
    if (/Admin {10}\S+ {2}\/ {2}\S+/.test(output)) return output
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  throw new Error(`npm start printed no banner within ${START_TIMEOUT_MS / 1000} s:\n${output}`)
}

beforeAll(async () => {
  scratch = mkdtempSync(path.join(tmpdir(), 'panel-npm-start-'))
  copyCheckout(scratch)
  target = createServer((_request, response) => response.end('ok'))
  await new Promise<void>((resolve) => target?.listen(0, '127.0.0.1', resolve))
  port = await freePort()
  // Its own process group, so that teardown stops npm, the start script, wrangler and workerd together.
  start = spawn('npm', ['start'], {
    cwd: scratch,
    env: { ...process.env, PORT: String(port), BOOTSTRAP_ADMIN_EMAIL: 'admin@npm-start.test' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  })
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-50_000)
  }
  start.stdout?.on('data', keep)
  start.stderr?.on('data', keep)
}, START_TIMEOUT_MS)

afterAll(async () => {
  const pid = start?.pid
  if (pid !== undefined && start?.exitCode === null) {
    const exited = new Promise((resolve) => start?.once('exit', resolve))
    process.kill(-pid, 'SIGTERM')
    const kill = setTimeout(() => process.kill(-pid, 'SIGKILL'), 5000)
    await exited
    clearTimeout(kill)
  }
  const server = target
  if (server) await new Promise((resolve) => server.close(resolve))
  if (scratch) rmSync(scratch, { recursive: true, force: true })
}, 30_000)

describe('npm start', () => {
  it(
    'runs the cron schedules itself: an http probe with the default interval goes up within two minutes',
    async () => {
      const banner = await untilBanner()
      expect(banner).toContain('* * * * *, 0 * * * *, */10 * * * * run at their minute boundaries (UTC)')
      const [, email, password] = banner.match(/Admin {10}(\S+) {2}\/ {2}(\S+)/) ?? []
      expect(email).toBe('admin@npm-start.test')

      const base = `http://127.0.0.1:${port}`
      const login = await fetch(`${base}/api/rpc/auth.login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: base },
        body: JSON.stringify({ email, password }),
      })
      expect(login.status, await login.clone().text()).toBe(200)
      const session = login.headers.getSetCookie().find((line) => line.startsWith(`${SESSION_COOKIE}=`))
      const client = createClient({
        baseUrl: base,
        headers: { cookie: session?.split(';')[0] ?? '', origin: base },
      })
      const address = target?.address()
      const targetPort = typeof address === 'object' && address ? address.port : 0
      const created = Date.now()
      const probe = await client.probes.create({
        name: 'local cron',
        type: 'http',
        targetKind: 'external',
        target: `http://127.0.0.1:${targetPort}/`,
      })
      expect(probe.config.intervalSeconds).toBe(60)
      expect(probe.state).toBe('paused')

      let state = probe.state
      while (state !== 'up' && Date.now() - created < UP_WITHIN_MS) {
        await new Promise((resolve) => setTimeout(resolve, 2000))
        state = (await client.probes.get({ id: probe.id })).state
      }
      expect(
        state,
        `the probe after ${Math.round((Date.now() - created) / 1000)} s; npm start printed:\n${output.slice(-4000)}`,
      ).toBe('up')
    },
    START_TIMEOUT_MS + UP_WITHIN_MS,
  )
})
