// npm start: first-run setup (.dev.vars with a random SECRETS_KEY and bootstrap admin), local D1 migrations,
// then `wrangler dev` on 127.0.0.1:$PORT (default 8787).
import { spawn, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'

const root = path.resolve(import.meta.dirname, '..')
const devVars = path.join(root, '.dev.vars')
const port = process.env.PORT ?? '8787'
const wrangler = path.join(root, 'node_modules/.bin/wrangler')
const env = { ...process.env, WRANGLER_SEND_METRICS: 'false' }

function readVars(file) {
  return Object.fromEntries(
    readFileSync(file, 'utf8')
      .split('\n')
      .map((line) => line.match(/^([A-Z_]+)=(.*)$/))
      .filter(Boolean)
      .map((m) => [m[1], m[2]]),
  )
}

if (!existsSync(devVars)) {
  const vars = {
    SECRETS_KEY: randomBytes(32).toString('base64url'),
    BOOTSTRAP_ADMIN_EMAIL: process.env.BOOTSTRAP_ADMIN_EMAIL ?? 'admin@localhost',
    BOOTSTRAP_ADMIN_PASSWORD: randomBytes(18).toString('base64url'),
    // Lets webhooks and the mirror upstream point at loopback while developing.
    ENVIRONMENT: 'development',
  }
  writeFileSync(
    devVars,
    `${Object.entries(vars)
      .map(([k, v]) => `${k}=${v}`)
      .join('\n')}\n`,
    { mode: 0o600 },
  )
  console.log('Wrote .dev.vars (git-ignored) with a new SECRETS_KEY and bootstrap admin.')
}

const migrate = spawnSync(wrangler, ['d1', 'migrations', 'apply', 'DB', '--local'], {
  cwd: root,
  env,
  stdio: 'inherit',
})
if (migrate.status !== 0) process.exit(migrate.status ?? 1)

const vars = readVars(devVars)
console.log(`
  Hosting panel: http://127.0.0.1:${port}
  OpenAPI:       http://127.0.0.1:${port}/api/v1/openapi.json
  Admin:         ${vars.BOOTSTRAP_ADMIN_EMAIL} / ${vars.BOOTSTRAP_ADMIN_PASSWORD}
  (the admin is created by the first sign-in while no user exists)
`)

const dev = spawn(wrangler, ['dev', '--ip', '127.0.0.1', '--port', port], {
  cwd: root,
  env,
  stdio: 'inherit',
})
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => dev.kill(signal))
dev.on('exit', (code) => process.exit(code ?? 0))
