import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { get } from 'node:https'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { freePort } from './harness.ts'

export const PEBBLE_APT_LINE = 'apt-get install -y --no-install-recommends pebble openssl'

/** A pebble ACME server for a test, and a PEM bundle of both roots an agent must trust for it. */
export interface PebbleProcess {
  directoryUrl: string
  /** Its own TLS root (made here with openssl) and its issuing root (fetched from its management API). */
  trustBundle: string
  stop(): Promise<void>
}

function httpsText(url: string, ca: string): Promise<string> {
  return new Promise((resolve, reject) => {
    get(url, { ca, timeout: 2000 }, (response) => {
      let body = ''
      response.setEncoding('utf8').on('data', (chunk: string) => {
        body += chunk
      })
      response.on('end', () =>
        response.statusCode === 200 ? resolve(body) : reject(new Error(`${url}: ${response.statusCode}`)),
      )
    }).once('error', reject)
  })
}

/** Where pebble validates: by default nowhere (every challenge passes); with a DNS server, real HTTP-01. */
export interface PebbleOptions {
  /** `host:port` of the DNS server pebble resolves challenge names with (`-dnsserver`). */
  dnsServer?: string
  /** The port pebble connects to for HTTP-01 (the proxy's HTTP port). */
  httpPort?: number
}

/**
 * Starts Debian's pebble on free 127.0.0.1 ports with a test CA made by openssl. Without a DNS server it
 * validates nothing (`PEBBLE_VA_ALWAYS_VALID=1`: the agent's suite tests issuance through Caddy, not HTTP-01
 * reachability); with one (the peers suite) it validates HTTP-01 for real.
 */
export async function startPebble(options: PebbleOptions = {}): Promise<PebbleProcess> {
  for (const binary of ['pebble', 'openssl']) {
    if (spawnSync(binary, ['-version']).error) throw new Error(`${binary} is missing: ${PEBBLE_APT_LINE}`)
  }
  const dir = await mkdtemp(path.join(tmpdir(), 'agent-pebble-'))
  const file = (name: string) => path.join(dir, name)
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'ignore' })
  openssl(
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-days',
    '2',
    '-subj',
    '/CN=agent test root',
    '-keyout',
    file('root.key'),
    '-out',
    file('root.pem'),
  )
  openssl(
    'req',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-subj',
    '/CN=127.0.0.1',
    '-keyout',
    file('server.key'),
    '-out',
    file('server.csr'),
  )
  await writeFile(file('ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n')
  openssl(
    'x509',
    '-req',
    '-in',
    file('server.csr'),
    '-CA',
    file('root.pem'),
    '-CAkey',
    file('root.key'),
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    file('ext'),
    '-out',
    file('server.pem'),
  )
  const port = await freePort()
  const managementPort = await freePort()
  await writeFile(
    file('pebble.json'),
    JSON.stringify({
      pebble: {
        listenAddress: `127.0.0.1:${port}`,
        managementListenAddress: `127.0.0.1:${managementPort}`,
        certificate: file('server.pem'),
        privateKey: file('server.key'),
        httpPort: options.httpPort ?? (await freePort()),
        tlsPort: await freePort(),
        ocspResponderURL: '',
        externalAccountBindingRequired: false,
      },
    }),
  )
  const dns = options.dnsServer ? ['-dnsserver', options.dnsServer] : []
  const validation = options.dnsServer ? {} : { PEBBLE_VA_ALWAYS_VALID: '1' }
  const child: ChildProcess = spawn('pebble', ['-config', file('pebble.json'), '-strict=false', ...dns], {
    env: { ...process.env, ...validation, PEBBLE_VA_NOSLEEP: '1', PEBBLE_WFE_NONCEREJECT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let log = ''
  for (const stream of [child.stdout, child.stderr]) {
    stream?.setEncoding('utf8').on('data', (chunk: string) => {
      log = (log + chunk).slice(-4000)
    })
  }
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const stop = async () => {
    child.kill('SIGKILL')
    await exited
    await rm(dir, { recursive: true, force: true })
  }
  const ownRoot = await readFile(file('root.pem'), 'utf8')
  const directoryUrl = `https://127.0.0.1:${port}/dir`
  for (let attempt = 0; attempt < 100 && child.exitCode === null; attempt++) {
    try {
      await httpsText(directoryUrl, ownRoot)
      const issuingRoot = await httpsText(`https://127.0.0.1:${managementPort}/roots/0`, ownRoot)
      const trustBundle = file('trust.pem')
      await writeFile(trustBundle, `${ownRoot.trim()}\n${issuingRoot.trim()}\n`)
      return { directoryUrl, trustBundle, stop }
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }
  await stop()
  throw new Error(`pebble did not start:\n${log}`)
}
