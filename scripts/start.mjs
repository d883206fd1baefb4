// npm start: first-run setup (.dev.vars with a random SECRETS_KEY and bootstrap admin), local D1 migrations,
// the web interface build (web/dist), then `wrangler dev` on 127.0.0.1:$PORT (default 8787), with the cron
// schedules of wrangler.toml fired at their minute boundaries as Cloudflare does. `--setup-only` stops after the
// migrations.
import { spawn, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { parseCron, readCrons } from './cron-schedule.mjs'

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

// Wrangler prints every applied statement (hundreds of lines on a fresh state); only a failure shows them.
const migrate = spawnSync(wrangler, ['d1', 'migrations', 'apply', 'DB', '--local'], {
  cwd: root,
  env,
  encoding: 'utf8',
})
if (migrate.status !== 0) {
  process.stdout.write(migrate.stdout ?? '')
  process.stderr.write(migrate.stderr ?? '')
  process.exit(migrate.status ?? 1)
}
// Wrangler redraws its table after each migration, so the applied ones are counted by name.
const applied = new Set((migrate.stdout ?? '').match(/\S+\.sql(?=\s*│\s*✅)/gu)).size
console.log(applied ? `Applied ${applied} local D1 migration(s).` : 'Local D1 migrations are up to date.')
if (process.argv.includes('--setup-only')) process.exit(0)

const web = spawnSync(process.execPath, [path.join(root, 'scripts/build-web.mjs')], {
  cwd: root,
  stdio: 'inherit',
})
if (web.status !== 0) process.exit(web.status ?? 1)

const crons = readCrons(readFileSync(path.join(root, 'wrangler.toml'), 'utf8')).map((cron) => ({
  cron,
  due: parseCron(cron),
}))
const vars = readVars(devVars)
const base = `http://127.0.0.1:${port}`
const login = JSON.stringify({ email: vars.BOOTSTRAP_ADMIN_EMAIL, password: vars.BOOTSTRAP_ADMIN_PASSWORD })
const banner = `
  ────────────────────────────────────────────────────────────────────────────
  Hosting panel  ${base}   (sign in there with the admin below)
  API reference  ${base}/docs   (OpenAPI: ${base}/api/v1/openapi.json)
  Cron           ${crons.map(({ cron }) => cron).join(', ')} run at their minute boundaries (UTC),
                 as on Cloudflare: probe checks, sweeps and mirror pulls happen here too
                 (run one now: curl '${base}/__scheduled?cron=*+*+*+*+*')
  Admin          ${vars.BOOTSTRAP_ADMIN_EMAIL}  /  ${vars.BOOTSTRAP_ADMIN_PASSWORD}
                 (created by the first sign-in while no user exists)

  An API token with curl: sign in, then tokens.create with the session cookie and the panel's Origin
  (every permission but managing users and tokens: enough for the README's tour)
    SESSION=$(curl -s -D - -o /dev/null ${base}/api/rpc/auth.login -H 'content-type: application/json' \\
      -d '${login}' | grep -o '__Host-panel_session=[^;]*')
    curl -s ${base}/api/rpc/tokens.create -H 'content-type: application/json' -H 'origin: ${base}' \\
      -H "cookie: $SESSION" -d '{"name":"cli","permissions":["fleet:view","fleet:manage","routes:manage",
      "domains:view","domains:manage","custom-hostnames:view","custom-hostnames:manage","probes:view",
      "probes:manage","settings:view","settings:edit","audit:view","changelog:manage"]}'
  then call anything with  -H 'authorization: Bearer pat_…'
  ────────────────────────────────────────────────────────────────────────────
`

// Runs every schedule due in the minute that starts at `minute` (ms) through wrangler dev's trigger endpoint, which
// hands the Worker's scheduled() this cron string and the minute as scheduledTime, as a real trigger would. The
// endpoint answers on loopback Host names only; on Cloudflare /cdn-cgi/ never reaches the Worker.
function fireDue(minute) {
  for (const { cron, due } of crons) {
    if (!due(new Date(minute))) continue
    const url = `${base}/cdn-cgi/local/scheduled?cron=${encodeURIComponent(cron)}&time=${minute}`
    fetch(url)
      .then(async (response) => {
        if (!response.ok)
          console.error(`cron ${cron}: the scheduled handler failed (${await response.text()})`)
      })
      .catch((error) => console.error(`cron ${cron}: wrangler dev did not answer (${error.message})`))
  }
}

function scheduleCrons() {
  const next = (Math.floor(Date.now() / 60_000) + 1) * 60_000
  setTimeout(() => {
    fireDue(next)
    scheduleCrons()
  }, next - Date.now())
}

// wrangler's own start-up output would scroll the banner away, so it is printed once wrangler says it is ready.
// --test-scheduled adds GET /__scheduled?cron=… to run a schedule now (and stops wrangler's warning that crons
// do not fire locally: here they do).
const dev = spawn(wrangler, ['dev', '--ip', '127.0.0.1', '--port', port, '--test-scheduled'], {
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
    scheduleCrons()
  }
})
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => dev.kill(signal))
dev.on('exit', (code) => process.exit(code ?? 0))
