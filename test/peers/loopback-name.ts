import { appendFileSync, readFileSync, writeFileSync } from 'node:fs'

// A name this machine's resolver answers with a loopback address, other than `localhost` (which the panel refuses
// by name): what a node's agent must refuse when the check runs, since the panel cannot know a name's addresses.

const HOSTS = '/etc/hosts'
const OURS = 'hosting-panel-peers-loopback.test'

/** A loopback name from the hosts file, or one added there (removed by the returned stop). */
export function loopbackName(): { name: string; stop: () => void } {
  const hosts = readFileSync(HOSTS, 'utf8')
  for (const line of hosts.split('\n')) {
    const [address, ...names] = line.replace(/#.*/, '').trim().split(/\s+/)
    if (!address?.startsWith('127.')) continue
    const name = names.find((candidate) => candidate !== 'localhost' && !candidate.endsWith('.localhost'))
    if (name) return { name, stop: () => {} }
  }
  appendFileSync(HOSTS, `\n127.0.0.1 ${OURS}\n`)
  return {
    name: OURS,
    stop: () => {
      const lines = readFileSync(HOSTS, 'utf8').split('\n')
      writeFileSync(HOSTS, lines.filter((line) => !line.includes(OURS)).join('\n'))
    },
  }
}
