// npm run bench:hostnames [-- --sizes 100,1000,5000,20000,100000] [--agent path/to/agent.mjs] [--rounds 3]:
// what one hostname more or less costs on a node serving N, with the real Caddy and the built agent
// (npm run build:agent → node-agent/dist/agent.mjs). Per size: a fresh Caddy, pebble and agent on free loopback
// ports in a temporary state dir; a whole state of N hostnames on a few upstreams (90% on one, as a SaaS has);
// then one added and one removed hostname, as changes (POST /v2/edge/changes; an agent before 0.4.0 answers 404
// and gets the whole state instead) and as a whole state differing by one (POST /v2/edge/apply), each timed from
// the call to its answer. Routing is measured over the TLS port: the handshake names the agent's own hostname
// (whose certificate pebble issued at start, so no issuance is timed), the request's Host header the hostname
// routed; Caddy's host matcher reads the Host header, so this is exactly the lookup a customer's request takes.
// Needs Node 24 (it imports the project's TypeScript signing code): run it through npm or `npx node`.
import { execFileSync, spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createServer } from 'node:http'
import { Agent, request } from 'node:https'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { freePorts } from '../../node-agent/testing/harness.ts'
import { startPebble } from '../../node-agent/testing/pebble.ts'
import { agentSignatureHeaders } from '../../src/lib/agent-signature.ts'

const root = path.resolve(import.meta.dirname, '../..')
const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '100,1000,5000,20000,100000' },
    agent: { type: 'string', default: path.join(root, 'node-agent/dist/agent.mjs') },
    rounds: { type: 'string', default: '3' },
  },
})
const SIZES = values.sizes.split(',').map(Number)
const ROUNDS = Number(values.rounds)
const SECRET = 'bench-agent-secret-0123456789'
const AGENT_HOSTNAME = 'bench-agent.test'
const UPSTREAMS = 5
const LATENCY_REQUESTS = 200

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]
const hostname = (i) => `c${String(i).padStart(6, '0')}.customer-domains.example`

/** Tiny upstreams answering which upstream and which Host they saw. */
async function startUpstreams(ports) {
  const servers = ports.map((port, index) =>
    createServer((req, res) => res.end(`upstream ${index} ${req.headers.host}`)).listen(port, '127.0.0.1'),
  )
  await Promise.all(servers.map((server) => new Promise((resolve) => server.once('listening', resolve))))
  return () => Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))))
}

function rssMb(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024)
}

function spawnLogged(command, args, env = process.env) {
  const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] })
  let log = ''
  for (const stream of [child.stdout, child.stderr])
    stream.setEncoding('utf8').on('data', (chunk) => {
      log = (log + chunk).slice(-4000)
    })
  const exited = new Promise((resolve) => child.once('exit', resolve))
  return {
    child,
    log: () => log,
    stop: async () => {
      child.kill('SIGKILL')
      await exited
    },
  }
}

async function signedPost(base, callPath, body) {
  const raw = typeof body === 'string' ? body : JSON.stringify(body)
  const headers = await agentSignatureHeaders(SECRET, {
    direction: 'panel-to-agent',
    method: 'POST',
    path: callPath,
    body: raw,
  })
  const started = performance.now()
  const response = await fetch(`${base}${callPath}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: raw,
  })
  const answer = await response.json().catch(() => null)
  return { status: response.status, body: answer, ms: performance.now() - started }
}

/** One request through Caddy's TLS port: answers the body, or null when Caddy routed it nowhere. */
function routed(httpsPort, tls, host) {
  return new Promise((resolve, reject) => {
    const sent = request(
      {
        host: '127.0.0.1',
        port: httpsPort,
        path: '/',
        agent: tls,
        servername: AGENT_HOSTNAME,
        headers: { host },
      },
      (res) => {
        let text = ''
        res.setEncoding('utf8').on('data', (chunk) => {
          text += chunk
        })
        res.on('end', () => resolve(text.startsWith('upstream') ? text : null))
      },
    )
    sent.once('error', reject)
    sent.end()
  })
}

async function until(what, check, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return
    await sleep(50)
  }
  throw new Error(`timed out waiting for ${what}`)
}

async function benchSize(n, pebble) {
  const dir = await mkdtemp(path.join(tmpdir(), 'bench-hostnames-'))
  const [apiPort, askPort, httpsPort, httpPort, ...upstreamPorts] = await freePorts(4 + UPSTREAMS)
  const stopUpstreams = await startUpstreams(upstreamPorts)
  const admin = `unix/${path.join(dir, 'caddy-admin.sock')}`
  await writeFile(path.join(dir, 'initial.json'), JSON.stringify({ admin: { listen: admin } }))
  const caddy = spawnLogged('caddy', ['run', '--config', path.join(dir, 'initial.json')], {
    ...process.env,
    HOME: dir,
    XDG_DATA_HOME: path.join(dir, 'data'),
    XDG_CONFIG_HOME: path.join(dir, 'config'),
  })
  const agent = spawnLogged(process.execPath, [
    values.agent,
    ...['--listen', `127.0.0.1:${apiPort}`, '--ask-listen', `127.0.0.1:${askPort}`],
    ...['--state-dir', path.join(dir, 'agent'), '--secret', SECRET, '--caddy-admin', admin],
    ...['--storage-dir', path.join(dir, 'caddy'), '--https-listen', `127.0.0.1:${httpsPort}`],
    ...[
      '--http-listen',
      `127.0.0.1:${httpPort}`,
      '--agent-hostname',
      AGENT_HOSTNAME,
      '--agent-issuer',
      'pebble',
    ],
    ...['--acme-pebble', pebble.directoryUrl, '--pebble-ca-root', pebble.trustBundle, '--node-id', 'bench'],
  ])
  const tls = new Agent({ keepAlive: true, maxSockets: 1, rejectUnauthorized: false })
  const base = `http://127.0.0.1:${apiPort}`
  try {
    await until('the agent', async () => (await signedPost(base, '/v2/health', {})).status === 200)
    // Most hostnames on one upstream, the rest spread over the others.
    const upstreamOf = (i) =>
      `127.0.0.1:${upstreamPorts[i % 10 === 0 ? 1 + ((i / 10) % (UPSTREAMS - 1)) : 0]}`
    const vhosts = Array.from({ length: n }, (_, i) => ({
      hostname: hostname(i),
      upstream: upstreamOf(i),
      issuer: 'letsencrypt',
    }))
    let version = 1
    const initial = await signedPost(base, '/v2/edge/apply', { configVersion: version, vhosts, forwards: [] })
    if (initial.status !== 200)
      throw new Error(`apply answered ${initial.status}: ${JSON.stringify(initial.body)}`)
    // The agent's own certificate (pebble) lets the TLS handshakes below complete.
    await until(
      'the agent certificate',
      async () => (await routed(httpsPort, tls, hostname(0))) !== null,
      90_000,
    )
    const wholeWith = (extra) =>
      JSON.stringify({ configVersion: version, vhosts: [...vhosts, ...extra], forwards: [] })
    const times = { changesAdd: [], changesRemove: [], wholeAdd: [], wholeRemove: [], routedAfter: [] }
    let changesSupported = true
    for (let round = 0; round < ROUNDS; round++) {
      const added = {
        hostname: `new${round}.fresh-customer.example`,
        upstream: upstreamOf(0),
        issuer: 'letsencrypt',
      }
      for (const mode of ['changes', 'whole']) {
        const baseVersion = version
        version++
        let add
        if (mode === 'changes' && changesSupported) {
          add = await signedPost(base, '/v2/edge/changes', {
            baseVersion,
            configVersion: version,
            vhosts: [added],
            removeHostnames: [],
            forwards: [],
            removeForwards: [],
          })
          if (add.status === 404) changesSupported = false
        }
        if (mode === 'whole' || !changesSupported)
          add = await signedPost(base, '/v2/edge/apply', wholeWith([added]))
        const answeredAt = performance.now()
        if (add.status !== 200) throw new Error(`adding answered ${add.status}: ${JSON.stringify(add.body)}`)
        await until(
          'the new hostname routed',
          async () => (await routed(httpsPort, tls, added.hostname)) !== null,
        )
        times[`${mode}Add`].push(add.ms)
        times.routedAfter.push(add.ms + performance.now() - answeredAt)
        version++
        const remove =
          mode === 'changes' && changesSupported
            ? await signedPost(base, '/v2/edge/changes', {
                baseVersion: version - 1,
                configVersion: version,
                vhosts: [],
                removeHostnames: [added.hostname],
                forwards: [],
                removeForwards: [],
              })
            : await signedPost(base, '/v2/edge/apply', wholeWith([]))
        if (remove.status !== 200) throw new Error(`removing answered ${remove.status}`)
        if ((await routed(httpsPort, tls, added.hostname)) !== null)
          throw new Error('a removed hostname still routes')
        times[`${mode}Remove`].push(remove.ms)
      }
    }
    const latency = async (host) => {
      const list = []
      for (let i = 0; i < LATENCY_REQUESTS; i++) {
        const started = performance.now()
        if ((await routed(httpsPort, tls, host)) === null) throw new Error(`${host} is not routed`)
        list.push(performance.now() - started)
      }
      return median(list)
    }
    await latency(hostname(0))
    const first = await latency(hostname(0))
    const last = await latency(hostname(n - 1))
    return {
      n,
      initial: initial.ms,
      changesAdd: changesSupported ? median(times.changesAdd) : null,
      changesRemove: changesSupported ? median(times.changesRemove) : null,
      wholeAdd: median(times.wholeAdd),
      wholeRemove: median(times.wholeRemove),
      routed: median(times.routedAfter),
      rss: rssMb(caddy.child.pid),
      first,
      last,
    }
  } catch (error) {
    console.error(`caddy:\n${caddy.log()}\nagent:\n${agent.log()}`)
    throw error
  } finally {
    tls.destroy()
    await agent.stop()
    await caddy.stop()
    await stopUpstreams()
    await rm(dir, { recursive: true, force: true })
  }
}

const pebble = await startPebble()
const rows = []
try {
  for (const n of SIZES) {
    const started = Date.now()
    rows.push(await benchSize(n, pebble))
    console.error(`${n} hostnames measured in ${Math.round((Date.now() - started) / 1000)} s`)
  }
} finally {
  await pebble.stop()
}
const ms = (value) => (value === null ? 'n/a (no /v2/edge/changes)' : `${Math.round(value)} ms`)
const fine = (value) => `${value.toFixed(2)} ms`
const caddyVersion = String(execFileSync('caddy', ['version'])).split(' ')[0]
console.log(
  `\nAgent: ${path.relative(root, values.agent)}; median of ${ROUNDS} rounds; Caddy ${caddyVersion}\n`,
)
console.log(
  '| hostnames | whole state applied | +1 changes | −1 changes | +1 whole state | −1 whole state | new hostname routed after | Caddy RSS | request, 1st / Nth hostname |',
)
console.log('|---|---|---|---|---|---|---|---|---|')
for (const row of rows) {
  console.log(
    `| ${row.n.toLocaleString('en')} | ${ms(row.initial)} | ${ms(row.changesAdd)} | ${ms(row.changesRemove)} | ${ms(row.wholeAdd)} | ${ms(row.wholeRemove)} | ${ms(row.routed)} | ${row.rss} MB | ${fine(row.first)} / ${fine(row.last)} |`,
  )
}
