import { spawn } from 'node:child_process'
import type { Forward } from '../src/agent-contract/v1.ts'

export const FIREWALL_CHAIN = 'HOSTING-PANEL'

/**
 * The forwards' firewall rules as `iptables-restore --noflush` input: the agent's own chain, emptied and refilled
 * on every apply, so a removed forward loses its rule. The operator adds the jump once:
 * `iptables -I INPUT -j HOSTING-PANEL`.
 */
export function renderFirewallRules(forwards: readonly Forward[]): string[] {
  return [
    '*filter',
    `:${FIREWALL_CHAIN} - [0:0]`,
    ...forwards.map(
      (forward) =>
        `-A ${FIREWALL_CHAIN} -p ${forward.proto} -m ${forward.proto} --dport ${forward.listenPort} -j ACCEPT`,
    ),
    'COMMIT',
  ]
}

/** Pipes the rules to the firewall command; rejects with its stderr when it fails. */
export function applyFirewallRules(command: readonly string[], rules: readonly string[]): Promise<void> {
  const [program, ...args] = command
  if (!program) return Promise.reject(new Error('no firewall command configured'))
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { stdio: ['pipe', 'ignore', 'pipe'], timeout: 10_000 })
    let stderr = ''
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk
    })
    child.on('error', reject)
    child.on('close', (code) =>
      code === 0
        ? resolve()
        : reject(new Error(`${program} exited with ${code}: ${stderr.trim().slice(0, 300)}`)),
    )
    child.stdin.end(`${rules.join('\n')}\n`)
  })
}
