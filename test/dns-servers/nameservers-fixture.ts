import { beforeEach } from 'vitest'
import { FakePowerDns } from '../fakes/powerdns'
import { type Caller, ok } from '../helpers/http'
import { adminSession } from '../helpers/principals'
import { captureJobs, type SentJob } from './run-job'

// For test/dns-servers-nameservers-*.test.ts. Importing this module registers their beforeEach: the captured
// JOBS queue and an admin session.

// A marker that must never come back in any response once the panel holds it.
export const API_KEY = 'pdns-api-key-MARKER-7f3a9c'
export const AGENT_SECRET = 'agent-secret-MARKER-0123456789'

export interface NameserverRow {
  id: string
  name: string
  hostname: string
  powerDns: { apiUrl: string; serverId: string; hasApiKey: true } | null
  health: { checkedAt: string | null; ok: boolean | null; detail: string | null }
}

export let admin: Caller
export let sent: SentJob[]
export let counter = 0

export function enrollInput(powerDns?: { apiUrl: string; apiKey: string; serverId?: string }) {
  counter++
  return {
    name: `dns-box-${counter}-${crypto.randomUUID().slice(0, 6)}`,
    hostname: `ns${counter}.boxes-${crypto.randomUUID().slice(0, 6)}.test`,
    publicIpv4: `198.51.100.${counter}`,
    publicIpv6: `2001:db8::${counter}`,
    agentUrl: `https://agent-${counter}.boxes.test`,
    agentSecret: AGENT_SECRET,
    ...(powerDns ? { powerDns } : {}),
  }
}

export function freshBox(): FakePowerDns {
  return new FakePowerDns(`https://pdns-${crypto.randomUUID().slice(0, 8)}.boxes.test`, API_KEY).install()
}

export async function nameserverCount(): Promise<number> {
  return (await ok<unknown[]>('dnsServers.nameservers.list', {}, admin)).length
}

beforeEach(async () => {
  sent = captureJobs()
  admin = await adminSession()
})
