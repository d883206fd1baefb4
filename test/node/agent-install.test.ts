import { spawnSync } from 'node:child_process'
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readConfig } from '../../node-agent/config.ts'

// node-agent/deploy/install.sh, run under --root with apt-get, useradd, getent, chown and systemctl replaced by
// stand-ins that log their arguments: the files it writes, the commands it runs, and settings the agent reads.

const script = path.join(import.meta.dirname, '../../node-agent/deploy/install.sh')
let dir: string
let root: string
let bundle: string
let log: string
let stubs: string

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'agent-install-'))
  root = path.join(dir, 'root')
  stubs = path.join(dir, 'bin')
  log = path.join(dir, 'commands.log')
  bundle = path.join(dir, 'agent.mjs')
  await Promise.all([mkdir(root), mkdir(stubs)])
  await writeFile(bundle, '#!/usr/bin/env node\nconsole.log("agent")\n')
  for (const command of ['apt-get', 'useradd', 'getent', 'chown', 'systemctl']) {
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

function install(args: string[], env: Record<string, string> = {}) {
  const run = spawnSync('bash', [script, '--root', root, '--agent', bundle, ...args], {
    env: { PATH: `${stubs}:${process.env.PATH}`, ...env },
    encoding: 'utf8',
  })
  return { status: run.status, stdout: run.stdout, stderr: run.stderr }
}

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

describe('install.sh', () => {
  it('should install the bundle, the settings the agent reads, both units, and enable and start them', async () => {
    const result = install([...required, '--acme-email', 'ops@example.com', '--listen', '127.0.0.1:9790'], {
      AGENT_SECRET: 'a "quoted" \\ secret-0123456789',
      AGENT_LISTEN: '127.0.0.1:1',
    })
    expect(result.status, result.stderr).toBe(0)
    expect(result.stdout).toContain('agentUrl: https://agent.node1.example.com')
    expect(await readFile(path.join(root, 'usr/lib/hosting-panel-agent/agent.mjs'), 'utf8')).toBe(
      await readFile(bundle, 'utf8'),
    )
    const env = environmentFile(await readFile(path.join(root, 'etc/hosting-panel-agent/agent.env'), 'utf8'))
    expect(env).toEqual({
      AGENT_SECRET: 'a "quoted" \\ secret-0123456789',
      AGENT_PANEL_URL: 'https://panel.example.com',
      AGENT_NODE_ID: 'node-1',
      AGENT_HOSTNAME: 'agent.node1.example.com',
      AGENT_ACME_EMAIL: 'ops@example.com',
      // The flag wins over the environment.
      AGENT_LISTEN: '127.0.0.1:9790',
    })
    // What systemd gives the agent: those variables, and the state directory it made.
    const config = readConfig([], { ...env, STATE_DIRECTORY: '/var/lib/hosting-panel-agent' })
    expect(config).toMatchObject({
      secret: 'a "quoted" \\ secret-0123456789',
      panelUrl: 'https://panel.example.com',
      nodeId: 'node-1',
      agentHostname: 'agent.node1.example.com',
      agentIssuer: 'letsencrypt',
      listen: '127.0.0.1:9790',
      stateDir: '/var/lib/hosting-panel-agent',
      storageDir: '/var/lib/hosting-panel-agent/caddy',
    })
    const unit = await readFile(path.join(root, 'etc/systemd/system/hosting-panel-agent.service'), 'utf8')
    for (const line of [
      'User=hosting-panel-agent',
      'AmbientCapabilities=CAP_NET_BIND_SERVICE',
      'Restart=always',
      'StateDirectory=hosting-panel-agent',
      'EnvironmentFile=/etc/hosting-panel-agent/agent.env',
    ]) {
      expect(unit).toContain(`\n${line}\n`)
    }
    expect(unit).toMatch(/\nExecStart=\/\S*node \/usr\/lib\/hosting-panel-agent\/agent\.mjs\n/)
    const dropIn = await readFile(
      path.join(root, 'etc/systemd/system/caddy.service.d/hosting-panel-agent.conf'),
      'utf8',
    )
    expect(dropIn).toContain('\nUser=hosting-panel-agent\n')
    expect(dropIn).toContain('\nExecStart=\nExecStart=/usr/bin/caddy run --resume\n')
    expect((await readFile(log, 'utf8')).trim().split('\n')).toEqual([
      'apt-get install -y --no-install-recommends caddy nodejs',
      'getent passwd hosting-panel-agent',
      'useradd --system --user-group --home-dir /var/lib/hosting-panel-agent --no-create-home --shell /usr/sbin/nologin hosting-panel-agent',
      `chown hosting-panel-agent:hosting-panel-agent ${root}/var/lib/hosting-panel-agent`,
      `chown root:hosting-panel-agent ${root}/etc/hosting-panel-agent ${root}/etc/hosting-panel-agent/agent.env`,
      'systemctl daemon-reload',
      'systemctl enable caddy.service hosting-panel-agent.service',
      'systemctl restart caddy.service',
      'systemctl restart hosting-panel-agent.service',
    ])
  })

  it('should refuse to install without a required setting or with an unknown flag, naming it', () => {
    const missing = install(required)
    expect(missing.status).toBe(2)
    expect(missing.stderr).toContain('--secret (or AGENT_SECRET) is required')
    const unknown = install([...required, '--secret', 'secret-0123456789', '--colour', 'blue'])
    expect(unknown.status).toBe(2)
    expect(unknown.stderr).toContain('unknown flag --colour')
  })
})
