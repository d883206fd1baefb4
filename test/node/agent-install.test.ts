import { spawnSync } from 'node:child_process'
import { chmod, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readConfig } from '../../node-agent/config.ts'

// node-agent/deploy/install.sh with apt-get, useradd, getent, chown, runuser and systemctl replaced by
// stand-ins that log their arguments. Every run passes --root, so nothing lands outside the temporary tree: alone
// it is the staging mode, which must run none of them; with INSTALL_SH_TEST_REAL=1 the script acts as a real
// install under that tree (its commands run, systemd "runs" when <tree>/run/systemd/system exists).

const script = path.join(import.meta.dirname, '../../node-agent/deploy/install.sh')
const commands = ['apt-get', 'useradd', 'getent', 'chown', 'runuser', 'systemctl']
const secret = 'a "quoted" \\ secret-0123456789'
let dir: string
let bundle: string
let log: string
let stubs: string

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'agent-install-'))
  stubs = path.join(dir, 'bin')
  log = path.join(dir, 'commands.log')
  bundle = path.join(dir, 'agent.mjs')
  await mkdir(stubs)
  await writeFile(bundle, '#!/usr/bin/env node\nconsole.log("agent")\n')
  for (const command of commands) {
    const file = path.join(stubs, command)
    // getent finds no such user, so the script creates it.
    const exit = command === 'getent' ? 2 : 0
    await writeFile(file, `#!/bin/sh\necho "${command} $*" >> "${log}"\nexit ${exit}\n`)
    await chmod(file, 0o755)
  }
})

afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

let runs = 0
async function newTree(options: { systemd?: boolean } = {}): Promise<string> {
  const tree = path.join(dir, `tree-${++runs}`)
  await mkdir(tree)
  if (options.systemd) await mkdir(path.join(tree, 'run/systemd/system'), { recursive: true })
  return tree
}

interface Run {
  status: number | null
  stdout: string
  stderr: string
  /** The commands the stand-ins saw, one line each. */
  calls: string[]
}

async function install(
  args: string[],
  options: { env?: Record<string, string>; input?: string } = {},
): Promise<Run> {
  await rm(log, { force: true })
  const run = spawnSync('bash', [script, '--agent', bundle, ...args], {
    env: { PATH: `${stubs}:${process.env.PATH}`, ...options.env },
    input: options.input ?? '',
    encoding: 'utf8',
  })
  const calls = await readFile(log, 'utf8').then(
    (text) => text.trim().split('\n'),
    () => [],
  )
  return { status: run.status, stdout: run.stdout, stderr: run.stderr, calls }
}

/** A real install (its commands run, through the stand-ins) whose files land under tree. */
const realInstall = (tree: string, args: string[], options: { input?: string } = {}) =>
  install(['--root', tree, ...args], { ...options, env: { INSTALL_SH_TEST_REAL: '1' } })

/** Reads an EnvironmentFile the way systemd does for these lines: KEY="value" with \\ and \" escapes. */
function environmentFile(text: string): Record<string, string> {
  const env: Record<string, string> = {}
  for (const line of text.split('\n')) {
    const match = /^([A-Z_]+)="((?:[^"\\]|\\.)*)"$/.exec(line)
    if (match?.[1] && match[2] !== undefined) env[match[1]] = match[2].replace(/\\(.)/g, '$1')
  }
  return env
}

const required = [
  '--panel-url',
  'https://panel.example.com',
  '--node-id',
  'node-1',
  '--agent-hostname',
  'agent.node1.example.com',
]
const socket = 'unix//var/lib/hosting-panel-agent/caddy-admin.sock'
const read = (tree: string, file: string) => readFile(path.join(tree, file), 'utf8')
const mode = async (tree: string, file: string) =>
  ((await stat(path.join(tree, file))).mode & 0o7777).toString(8)

async function secretFile(text: string): Promise<string> {
  const file = path.join(dir, `secret-${++runs}`)
  await writeFile(file, text, { mode: 0o600 })
  return file
}

describe('install.sh', () => {
  it('should install the bundle, the settings the agent reads, both units, and enable and start them', async () => {
    const tree = await newTree({ systemd: true })
    const file = await secretFile(`${secret}\n`)
    const result = await realInstall(tree, [
      '--secret-file',
      file,
      ...required,
      '--acme-email',
      'ops@example.com',
      '--listen',
      '127.0.0.1:9790',
    ])
    expect(result.status, result.stderr).toBe(0)
    expect(result.stdout).toContain('agentUrl: https://agent.node1.example.com ')
    expect(await read(tree, 'usr/lib/hosting-panel-agent/agent.mjs')).toBe(await readFile(bundle, 'utf8'))
    const env = environmentFile(await read(tree, 'etc/hosting-panel-agent/agent.env'))
    expect(env).toEqual({
      AGENT_SECRET: secret,
      AGENT_PANEL_URL: 'https://panel.example.com',
      AGENT_NODE_ID: 'node-1',
      AGENT_HOSTNAME: 'agent.node1.example.com',
      AGENT_ACME_EMAIL: 'ops@example.com',
      AGENT_LISTEN: '127.0.0.1:9790',
      // Written even when not passed: the address Caddy's initial config listens on is the agent's.
      AGENT_CADDY_ADMIN: socket,
    })
    // What systemd gives the agent: those variables, and the state directory it made.
    const config = readConfig([], { ...env, STATE_DIRECTORY: '/var/lib/hosting-panel-agent' })
    expect(config).toMatchObject({
      secret,
      panelUrl: 'https://panel.example.com',
      nodeId: 'node-1',
      agentHostname: 'agent.node1.example.com',
      listen: '127.0.0.1:9790',
      stateDir: '/var/lib/hosting-panel-agent',
      storageDir: '/var/lib/hosting-panel-agent/caddy',
      caddyAdmin: socket,
    })
    const unit = await read(tree, 'etc/systemd/system/hosting-panel-agent.service')
    for (const line of [
      'User=hosting-panel-agent',
      'AmbientCapabilities=CAP_NET_BIND_SERVICE',
      'Restart=always',
      'StateDirectory=hosting-panel-agent',
      'EnvironmentFile=/etc/hosting-panel-agent/agent.env',
      'ProtectKernelLogs=true',
      'RestrictNamespaces=true',
      'LockPersonality=true',
      'SystemCallArchitectures=native',
    ]) {
      expect(unit).toContain(`\n${line}\n`)
    }
    expect(unit).toMatch(/\nExecStart=\/\S*node \/usr\/lib\/hosting-panel-agent\/agent\.mjs\n/)
    const dropIn = await read(tree, 'etc/systemd/system/caddy.service.d/hosting-panel-agent.conf')
    for (const line of [
      'User=hosting-panel-agent',
      'ExecStart=\nExecStart=/usr/bin/caddy run --resume --config /etc/hosting-panel-agent/caddy-initial.json',
      'NoNewPrivileges=true',
      'ProtectSystem=strict',
      'ProtectHome=true',
      'PrivateTmp=true',
      'CapabilityBoundingSet=CAP_NET_BIND_SERVICE',
      'UMask=0077',
    ]) {
      expect(dropIn).toContain(`\n${line}\n`)
    }
    expect(JSON.parse(await read(tree, 'etc/hosting-panel-agent/caddy-initial.json'))).toEqual({
      admin: { listen: socket },
    })
    expect(result.calls).toEqual([
      'apt-get install -y --no-install-recommends caddy nodejs',
      'getent passwd hosting-panel-agent',
      'useradd --system --user-group --home-dir /var/lib/hosting-panel-agent --no-create-home --shell /usr/sbin/nologin hosting-panel-agent',
      `chown hosting-panel-agent:hosting-panel-agent ${tree}/var/lib/hosting-panel-agent`,
      `chown root:hosting-panel-agent ${tree}/etc/hosting-panel-agent ${tree}/etc/hosting-panel-agent/agent.env ${tree}/etc/hosting-panel-agent/caddy-initial.json`,
      'systemctl daemon-reload',
      'systemctl enable caddy.service hosting-panel-agent.service',
      'systemctl restart caddy.service',
      'systemctl restart hosting-panel-agent.service',
    ])
  })

  it('should read the secret from standard input, and pass it to no command', async () => {
    const tree = await newTree({ systemd: true })
    const result = await realInstall(tree, ['--secret-stdin', ...required], { input: `${secret}\n` })
    expect(result.status, result.stderr).toBe(0)
    expect(environmentFile(await read(tree, 'etc/hosting-panel-agent/agent.env')).AGENT_SECRET).toBe(secret)
    expect(result.calls.length).toBeGreaterThan(0)
    expect(result.calls.join('\n')).not.toContain('secret-0123456789')
    expect(`${result.stdout}${result.stderr}`).not.toContain('secret-0123456789')
  })

  it('should refuse the secret on the command line, naming --secret-file and --secret-stdin, and install nothing', async () => {
    const tree = await newTree({ systemd: true })
    const result = await realInstall(tree, ['--secret', 'secret-0123456789', ...required])
    expect(result.status).toBe(2)
    expect(result.stderr).toContain('--secret-file')
    expect(result.stderr).toContain('--secret-stdin')
    expect(result.stderr).not.toContain('secret-0123456789')
    expect(result.calls).toEqual([])
    await expect(stat(path.join(tree, 'etc'))).rejects.toThrow()
  })

  it('should refuse an empty secret file or standard input', async () => {
    const tree = await newTree({ systemd: true })
    const empty = await realInstall(tree, ['--secret-file', await secretFile('\n'), ...required])
    expect(empty.status).toBe(2)
    expect(empty.stderr).toContain('--secret-file')
    const none = await realInstall(tree, ['--secret-stdin', ...required], { input: '' })
    expect(none.status).toBe(2)
    expect(none.stderr).toContain('standard input')
    expect([...empty.calls, ...none.calls]).toEqual([])
  })

  it('should stage under --root with the modes and a note of the owners, running no command on the machine', async () => {
    const tree = await newTree()
    const result = await install([
      '--root',
      tree,
      '--secret-file',
      await secretFile(secret),
      ...required,
      '--caddy-admin',
      'unix//run/hosting-panel-agent/admin.sock',
    ])
    expect(result.status, result.stderr).toBe(0)
    expect(result.calls).toEqual([])
    expect(result.stdout).toContain(`staged under ${tree}`)
    expect(await mode(tree, 'etc/hosting-panel-agent/agent.env')).toBe('640')
    expect(await mode(tree, 'etc/hosting-panel-agent')).toBe('750')
    expect(await mode(tree, 'var/lib/hosting-panel-agent')).toBe('750')
    expect(await mode(tree, 'run/hosting-panel-agent')).toBe('750')
    expect(await mode(tree, 'etc/systemd/system/hosting-panel-agent.service')).toBe('644')
    // The socket's directory is outside the state directory: both units may write there.
    const dropIn = await read(tree, 'etc/systemd/system/caddy.service.d/hosting-panel-agent.conf')
    expect(dropIn).toContain('\nReadWritePaths=/run/hosting-panel-agent\n')
    expect(await read(tree, 'etc/systemd/system/hosting-panel-agent.service')).toContain(
      '\nReadWritePaths=/run/hosting-panel-agent\n',
    )
    // A staged tree names the packaged node, not whichever this machine has.
    expect(await read(tree, 'etc/systemd/system/hosting-panel-agent.service')).toContain(
      '\nExecStart=/usr/bin/node /usr/lib/hosting-panel-agent/agent.mjs\n',
    )
    expect((await read(tree, 'hosting-panel-agent.owners')).split('\n')).toEqual(
      expect.arrayContaining([
        'hosting-panel-agent:hosting-panel-agent /var/lib/hosting-panel-agent',
        'hosting-panel-agent:hosting-panel-agent /run/hosting-panel-agent',
        'root:hosting-panel-agent /etc/hosting-panel-agent',
        'root:hosting-panel-agent /etc/hosting-panel-agent/agent.env',
        'root:hosting-panel-agent /etc/hosting-panel-agent/caddy-initial.json',
      ]),
    )
  })

  it('should install the files, say how to start the agent and exit 0 where systemd is not running', async () => {
    const tree = await newTree()
    const result = await realInstall(tree, ['--secret-file', await secretFile(secret), ...required])
    expect(result.status, result.stderr).toBe(0)
    expect(result.stdout).toContain(
      'systemd is not running here: the files are installed; start the agent with',
    )
    expect(result.stdout).toContain('caddy run --resume --config /etc/hosting-panel-agent/caddy-initial.json')
    expect(result.calls.some((call) => call.startsWith('systemctl'))).toBe(false)
    expect(result.calls[0]).toBe('apt-get install -y --no-install-recommends caddy nodejs')
    expect(await read(tree, 'etc/systemd/system/hosting-panel-agent.service')).toContain(
      'User=hosting-panel-agent',
    )
  })

  it('should name the port in the agentUrl when Caddy serves HTTPS on another port than 443', async () => {
    const tree = await newTree()
    const args = ['--root', tree, '--secret-file', await secretFile(secret), ...required]
    const other = await install([...args, '--https-listen', '127.0.0.1:30743'])
    expect(other.status, other.stderr).toBe(0)
    expect(other.stdout).toContain('agentUrl: https://agent.node1.example.com:30743 ')
    const standard = await install([...args, '--https-listen', ':443'])
    expect(standard.stdout).toContain('agentUrl: https://agent.node1.example.com ')
  })

  it('should give Caddy an initial config whose admin listens where --caddy-admin says', async () => {
    const tree = await newTree()
    const args = ['--root', tree, '--secret-file', await secretFile(secret), ...required]
    const initial = () => read(tree, 'etc/hosting-panel-agent/caddy-initial.json').then(JSON.parse)
    expect((await install([...args, '--caddy-admin', 'http://127.0.0.1:30719'])).status).toBe(0)
    expect(await initial()).toEqual({ admin: { listen: '127.0.0.1:30719' } })
    expect(environmentFile(await read(tree, 'etc/hosting-panel-agent/agent.env')).AGENT_CADDY_ADMIN).toBe(
      'http://127.0.0.1:30719',
    )
    expect(
      (await install([...args, '--caddy-admin', 'unix//var/lib/hosting-panel-agent/admin.sock'])).status,
    ).toBe(0)
    expect(await initial()).toEqual({ admin: { listen: 'unix//var/lib/hosting-panel-agent/admin.sock' } })
    const refused = await install([...args, '--caddy-admin', 'https://127.0.0.1:2019/'])
    expect(refused.status).toBe(2)
    expect(refused.stderr).toContain('--caddy-admin')
  })

  it("should set Caddy's autosave aside when its admin listens elsewhere, which --resume would prefer", async () => {
    const tree = await newTree({ systemd: true })
    const autosave = path.join(tree, 'var/lib/hosting-panel-agent/.config/caddy/autosave.json')
    await mkdir(path.dirname(autosave), { recursive: true })
    await writeFile(autosave, '{"admin":{"listen":"127.0.0.1:2019"},"apps":{}}')
    const args = ['--secret-file', await secretFile(secret), ...required]
    expect((await realInstall(tree, args)).status).toBe(0)
    await expect(stat(autosave)).rejects.toThrow()
    expect(await readFile(`${autosave}.before-install`, 'utf8')).toContain('127.0.0.1:2019')
    const kept = `{"admin":{"listen":"${socket}"},"apps":{}}`
    await writeFile(autosave, kept)
    expect((await realInstall(tree, args)).status).toBe(0)
    expect(await readFile(autosave, 'utf8')).toBe(kept)
  })

  it('should refuse to install without a required setting or with an unknown flag, naming it', async () => {
    const tree = await newTree()
    const missing = await install(['--root', tree, ...required])
    expect(missing.status).toBe(2)
    expect(missing.stderr).toContain('--secret-file or --secret-stdin (or AGENT_SECRET) is required')
    const unknown = await install([
      '--root',
      tree,
      '--secret-file',
      await secretFile(secret),
      ...required,
      '--colour',
      'blue',
    ])
    expect(unknown.status).toBe(2)
    expect(unknown.stderr).toContain('unknown flag --colour')
  })
})
