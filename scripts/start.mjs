// npm start: first-run setup (.dev.vars with a random SECRETS_KEY and bootstrap admin), local D1 migrations,
// the web interface build (web/dist), then `wrangler dev` on 127.0.0.1:$PORT (default 8787). `--setup-only`
// stops after the migrations.
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
    // Lets webhooks, the mirror upstream, agents and PowerDNS point at loopback while developing.
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
if (process.argv.includes('--setup-only')) process.exit(0)

const web = spawnSync(process.execPath, [path.join(root, 'scripts/build-web.mjs')], {
  cwd: root,
  stdio: 'inherit',
})
if (web.status !== 0) process.exit(web.status ?? 1)

const vars = readVars(devVars)
const base = `http://127.0.0.1:${port}`
const login = JSON.stringify({ email: vars.BOOTSTRAP_ADMIN_EMAIL, password: vars.BOOTSTRAP_ADMIN_PASSWORD })
const banner = `
  ────────────────────────────────────────────────────────────────────────────
  Hosting panel  ${base}   (sign in there with the admin below)
  OpenAPI        ${base}/api/v1/openapi.json
  Admin          ${vars.BOOTSTRAP_ADMIN_EMAIL}  /  ${vars.BOOTSTRAP_ADMIN_PASSWORD}
                 (created by the first sign-in while no user exists)

  An API token with curl: sign in, then tokens.create with the session cookie and the panel's Origin
    SESSION=$(curl -s -D - -o /dev/null ${base}/api/rpc/auth.login -H 'content-type: application/json' \\
      -d '${login}' | grep -o '__Host-panel_session=[^;]*')
    curl -s ${base}/api/rpc/tokens.create -H 'content-type: application/json' -H 'origin: ${base}' \\
      -H "cookie: $SESSION" -d '{"name":"cli","permissions":["fleet:view","fleet:manage"]}'
  then call anything with  -H 'authorization: Bearer pat_…'
  ────────────────────────────────────────────────────────────────────────────
`

// wrangler's own start-up output would scroll the banner away, so it is printed once wrangler says it is ready.
const dev = spawn(wrangler, ['dev', '--ip', '127.0.0.1', '--port', port], {
  cwd: root,
  env,
  stdio: ['inherit', 'pipe', 'inherit'],
})
let shown = false
dev.stdout.on('data', (chunk) => {
  process.stdout.write(chunk)
  if (!shown && /Ready on/.test(chunk.toString())) {
    shown = true
    process.stdout.write(banner)
  }
})
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => dev.kill(signal))
dev.on('exit', (code) => process.exit(code ?? 0))
