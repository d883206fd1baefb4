import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freePort } from '../../node-agent/testing/harness.ts'
import { applyMigrations, WranglerDev } from '../ui/wrangler-dev.ts'

// The real /metrics of a real `wrangler dev`, read by the software people read it with: Debian's `promtool check
// metrics` lints the Prometheus text format, and a real `prometheus` scrapes the OpenMetrics answer with a bearer
// token and must ingest it (a target whose answer does not parse is `up 0` with the parser's error).

const root = path.join(import.meta.dirname, '../..')
const PROMTOOL = '/usr/bin/promtool'
const PROMETHEUS = '/usr/bin/prometheus'
const ADMIN = { email: 'admin@metrics.test', password: 'metrics-admin-password-123' }

let scratch: string
let dev: WranglerDev
let token: string
let heartbeatId: string

async function rpc<T>(name: string, body: unknown, headers: Record<string, string>): Promise<T> {
  const response = await fetch(`${dev.url}/api/rpc/${name}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: dev.url, ...headers },
    body: JSON.stringify(body),
  })
  if (!response.ok) throw new Error(`${name} answered ${response.status}: ${await response.text()}`)
  const cookie = response.headers.get('set-cookie')
  return { ...((await response.json()) as T), ...(cookie ? { cookie: cookie.split(';')[0] } : {}) }
}

const scrape = (accept: string) =>
  fetch(`${dev.url}/metrics`, { headers: { authorization: `Bearer ${token}`, accept } })

beforeAll(async () => {
  if (!existsSync(PROMTOOL) || !existsSync(PROMETHEUS))
    throw new Error(
      'promtool and prometheus are missing: apt-get install -y --no-install-recommends prometheus',
    )
  scratch = mkdtempSync(path.join(tmpdir(), 'panel-metrics-'))
  const persistTo = path.join(scratch, 'state')
  mkdirSync(persistTo)
  await applyMigrations(persistTo)
  dev = await WranglerDev.start({
    persistTo,
    assets: path.join(root, 'web/dist'),
    vars: {
      SECRETS_KEY: Buffer.alloc(32, 7).toString('base64url'),
      SECRETS_KEY_PREVIOUS: '',
      BOOTSTRAP_ADMIN_EMAIL: ADMIN.email,
      BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password,
      ENVIRONMENT: 'development',
      IMAGE_TAG: 'metrics-test',
    },
  })
  const { cookie } = await rpc<{ cookie: string }>('auth.login', ADMIN, {})
  const minted = await rpc<{ token: string }>(
    'tokens.create',
    { name: 'prometheus', permissions: ['settings:view'] },
    { cookie },
  )
  token = minted.token
  const probe = await rpc<{ id: string; heartbeatUrl: string }>(
    'probes.create',
    { name: 'nightly "backup"', type: 'heartbeat', targetKind: 'external', target: 'backup' },
    { cookie },
  )
  heartbeatId = probe.id
  // The first ping brings it up: the monitor writes the state and the day's rollup to D1 at once.
  expect((await fetch(probe.heartbeatUrl.replace(/^https?:\/\/[^/]+/, dev.url))).status).toBe(200)
}, 300_000)

afterAll(async () => {
  await dev?.stop()
  if (scratch) rmSync(scratch, { recursive: true, force: true })
})

describe('promtool check metrics', () => {
  it('should find nothing to say about the Prometheus text format the endpoint answers', async () => {
    const answer = await scrape('text/plain;version=0.0.4')
    expect(answer.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8')
    const text = await answer.text()
    expect(text).toContain(
      `probe_up{probe_id="${heartbeatId}",probe_name="nightly \\"backup\\"",probe_type="heartbeat"} 1`,
    )
    expect(text).toMatch(
      new RegExp(`probe_heartbeat_last_ping_age_seconds\\{probe_id="${heartbeatId}"[^}]*\\} \\d`),
    )
    const lint = spawnSync(PROMTOOL, ['check', 'metrics'], { input: text, encoding: 'utf8' })
    expect(`${lint.stdout}${lint.stderr}`).toBe('')
    expect(lint.status).toBe(0)
  })

  it('should be able to say no: a counter without _total and a name with a unit abbreviation', () => {
    const bad = '# HELP probe_latency_ms x\n# TYPE probe_latency_ms counter\nprobe_latency_ms 1\n'
    const lint = spawnSync(PROMTOOL, ['check', 'metrics'], { input: bad, encoding: 'utf8' })
    expect(lint.status).not.toBe(0)
    expect(lint.stdout + lint.stderr).toContain('counter metrics should have "_total" suffix')
  })
})

describe('a real prometheus scraping /metrics', () => {
  let prometheus: ChildProcess | undefined

  afterAll(() => {
    if (prometheus?.pid !== undefined && prometheus.exitCode === null) prometheus.kill('SIGTERM')
  })

  it('should ingest the OpenMetrics answer with the bearer token: up 1 and the probe series queryable', async () => {
    const answer = await scrape('application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5')
    expect(answer.headers.get('content-type')).toBe(
      'application/openmetrics-text; version=1.0.0; charset=utf-8',
    )
    expect((await answer.text()).endsWith('# EOF\n')).toBe(true)

    const port = await freePort()
    const dir = path.join(scratch, 'prometheus')
    mkdirSync(dir)
    const config = path.join(dir, 'prometheus.yml')
    writeFileSync(
      config,
      [
        'global: { scrape_interval: 1s, scrape_timeout: 1s }',
        'scrape_configs:',
        '  - job_name: panel',
        '    metrics_path: /metrics',
        `    authorization: { type: Bearer, credentials: "${token}" }`,
        `    static_configs: [{ targets: ["${new URL(dev.url).host}"] }]`,
        '',
      ].join('\n'),
    )
    prometheus = spawn(
      PROMETHEUS,
      [
        `--config.file=${config}`,
        `--storage.tsdb.path=${path.join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
      ],
      { stdio: 'ignore' },
    )
    const query = async (expr: string) => {
      const response = await fetch(`http://127.0.0.1:${port}/api/v1/query?query=${encodeURIComponent(expr)}`)
      const body = (await response.json()) as {
        data: { result: { metric: Record<string, string>; value: [number, string] }[] }
      }
      return body.data.result
    }
    let up: string | undefined
    for (let i = 0; i < 120 && up === undefined; i++) {
      await new Promise((resolve) => setTimeout(resolve, 500))
      up = await query('up{job="panel"}')
        .then((result) => result[0]?.value[1])
        .catch(() => undefined)
    }
    const targets = await fetch(`http://127.0.0.1:${port}/api/v1/targets`).then(
      (response) =>
        response.json() as Promise<{ data: { activeTargets: { lastError: string; health: string }[] } }>,
    )
    expect(targets.data.activeTargets[0]?.lastError).toBe('')
    expect(up).toBe('1')
    const probeUp = await query(`probe_up{probe_id="${heartbeatId}"}`)
    expect(probeUp.map((sample) => [sample.metric.probe_name, sample.value[1]])).toEqual([
      ['nightly "backup"', '1'],
    ])
    const state = await query(`probe_state{probe_id="${heartbeatId}",probe_state="up"}`)
    expect(state[0]?.value[1]).toBe('1')
  }, 120_000)
})
