import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { mkdir, mkdtemp, readdir, readFile, readlink, rm, stat, writeFile } from 'node:fs/promises'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CADDY_APT_LINE, freePort } from '../../node-agent/testing/harness.ts'

// The real Caddy (Debian's 2.6) started the way install.sh's caddy.service drop-in starts it: its ExecStart and
// UMask, the initial config install.sh wrote, HOME the state directory as systemd gives the agent's user. Its
// admin API must listen on the unix socket --caddy-admin names, and on no TCP port, on the first start and after
// a restart that resumes the agent's config.

const script = path.join(import.meta.dirname, '../../node-agent/deploy/install.sh')
let dir: string
let tree: string
let state: string
let socket: string
let command: string[]
let umask: string
let caddy: ChildProcess | undefined
let caddyLog = ''

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'install-caddy-'))
  tree = path.join(dir, 'tree')
  state = path.join(dir, 'state')
  socket = path.join(state, 'caddy-admin.sock')
  await Promise.all([mkdir(tree), mkdir(state, { mode: 0o750 })])
  const bundle = path.join(dir, 'agent.mjs')
  const secret = path.join(dir, 'secret')
  await writeFile(bundle, '')
  await writeFile(secret, 'secret-0123456789\n')
  const staged = spawnSync(
    'bash',
    [
      script,
      '--root',
      tree,
      '--agent',
      bundle,
      '--secret-file',
      secret,
      '--panel-url',
      'https://panel.example.com',
      '--node-id',
      'node-1',
      '--agent-hostname',
      'agent.node1.example.com',
      '--caddy-admin',
      `unix/${socket}`,
    ],
    { encoding: 'utf8' },
  )
  expect(staged.status, staged.stderr).toBe(0)
  const dropIn = await readFile(
    path.join(tree, 'etc/systemd/system/caddy.service.d/hosting-panel-agent.conf'),
    'utf8',
  )
  const execStart = [...dropIn.matchAll(/^ExecStart=(.+)$/gm)].at(-1)?.[1] ?? ''
  // The files the drop-in names, where the staged tree holds them.
  command = execStart.split(' ').map((word) => (word.startsWith('/etc/') ? path.join(tree, word) : word))
  umask = /^UMask=(\d+)$/m.exec(dropIn)?.[1] ?? ''
  const caddyBinary = command[0] ?? ''
  if (spawnSync(caddyBinary, ['version']).error) {
    throw new Error(
      `${caddyBinary}, which the drop-in runs, is missing: install Debian's caddy (${CADDY_APT_LINE})`,
    )
  }
})

afterAll(async () => {
  await stopCaddy()
  await rm(dir, { recursive: true, force: true })
})

async function startCaddy(): Promise<number> {
  const child = spawn('sh', ['-c', `umask ${umask} && exec "$@"`, 'sh', ...command], {
    env: { PATH: process.env.PATH, HOME: state },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  caddy = child
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    caddyLog = (caddyLog + chunk).slice(-4000)
  })
  for (let attempt = 0; attempt < 100 && child.exitCode === null; attempt++) {
    if (
      await admin('GET', '/config/').then(
        (answer) => answer.status === 200,
        () => false,
      )
    )
      return child.pid ?? 0
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`caddy (${command.join(' ')}) did not answer on ${socket}:\n${caddyLog}`)
}

async function stopCaddy(): Promise<void> {
  const child = caddy
  caddy = undefined
  if (!child || child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGKILL')
  await exited
}

/** A call to Caddy's admin API over the socket: 2.6 answers 403 to any Host there but an empty one. */
function admin(method: string, route: string, body?: unknown): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const call = request(
      {
        socketPath: socket,
        method,
        path: route,
        setHost: false,
        headers: { host: '', 'content-type': 'application/json' },
      },
      (response) => {
        let text = ''
        response.setEncoding('utf8').on('data', (chunk: string) => {
          text += chunk
        })
        response.once('end', () => resolve({ status: response.statusCode ?? 0, text }))
      },
    )
    call.once('error', reject)
    call.end(body === undefined ? undefined : JSON.stringify(body))
  })
}

/** The TCP ports a process listens on: its socket inodes among /proc/net/tcp{,6} rows in state LISTEN. */
async function tcpListenPorts(pid: number): Promise<number[]> {
  const inodes = new Set<string>()
  for (const fd of await readdir(`/proc/${pid}/fd`)) {
    const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '')
    const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1]
    if (inode) inodes.add(inode)
  }
  const ports: number[] = []
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const row of (await readFile(table, 'utf8')).split('\n').slice(1)) {
      const fields = row.trim().split(/\s+/)
      const [local, state, inode] = [fields[1], fields[3], fields[9]]
      if (local && state === '0A' && inode && inodes.has(inode))
        ports.push(Number.parseInt(local.split(':')[1] ?? '', 16))
    }
  }
  return ports.sort()
}

describe("Caddy started by install.sh's drop-in", () => {
  it('should listen for its admin API on the unix socket --caddy-admin names, owned by its user, and on no TCP port', async () => {
    expect(command.slice(1)).toEqual([
      'run',
      '--resume',
      '--config',
      path.join(tree, 'etc/hosting-panel-agent/caddy-initial.json'),
    ])
    const pid = await startCaddy()
    const file = await stat(socket)
    expect(file.isSocket()).toBe(true)
    expect(file.uid).toBe(process.getuid?.())
    // UMask=0077: only the owner may connect, inside a 0750 directory of the same user.
    expect(file.mode & 0o077).toBe(0)
    expect(JSON.parse((await admin('GET', '/config/')).text)).toEqual({ admin: { listen: `unix/${socket}` } })
    expect(await tcpListenPorts(pid)).toEqual([])
  }, 20_000)

  it("should resume the agent's last config on the same socket after it was killed", async () => {
    const port = await freePort()
    const config = {
      admin: { listen: `unix/${socket}` },
      apps: { http: { servers: { agent: { listen: [`127.0.0.1:${port}`] } } } },
    }
    expect((await admin('POST', '/load', config)).status).toBe(200)
    await stopCaddy()
    const pid = await startCaddy()
    expect(JSON.parse((await admin('GET', '/config/')).text)).toEqual(config)
    expect(await tcpListenPorts(pid)).toEqual([port])
  }, 20_000)
})
