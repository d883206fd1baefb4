import { env } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import { openSecret, sealSecret } from '../src/lib/secrets'
import { procedures } from '../src/rpc/registry'
import { FakePowerDns } from './fakes/powerdns'
import { type Caller, call } from './helpers/http'
import { interceptOutbound } from './helpers/outbound'
import { adminSession } from './helpers/principals'

const MARKER = 'SECRET-MARKER-7f3a9c'
const keys = { SECRETS_KEY: 'dGVzdC1zZWNyZXRzLWtleS0zMi1ieXRlcy1sb25nISE' }
const nextKey = { SECRETS_KEY: 'bmV4dC1zZWNyZXRzLWtleS0zMi1ieXRlcy1sb25nISE' }

/** Calls a procedure that writes a secret and checks its own answer does not echo it. */
async function write<T>(name: string, input: unknown, admin: Caller): Promise<T> {
  const res = await call<T>(name, input, admin)
  expect(res.status, res.text).toBe(200)
  expect(res.text, name).not.toContain(MARKER)
  return res.body
}

/** Each seeder stores one kind of secret carrying the marker and returns the ids it created. */
const seeders: ((admin: Caller) => Promise<string[]>)[] = [
  async (admin) => {
    const n = await write<{ id: string }>(
      'nodes.create',
      { name: 'secret-node', agentUrl: 'https://agent.test', agentSecret: `${MARKER}-agent-secret` },
      admin,
    )
    await write('nodes.update', { id: n.id, agentSecret: `${MARKER}-rotated-agent-secret` }, admin)
    return [n.id]
  },
  async (admin) => {
    const account = await write<{ id: string }>(
      'accounts.create',
      { kind: 'dns', name: 'secret-dns', provider: 'provider_a', token: `${MARKER}-provider-token` },
      admin,
    )
    await write('accounts.update', { id: account.id, token: `${MARKER}-rotated-provider-token` }, admin)
    return [account.id]
  },
  async (admin) => {
    const target = await write<{ id: string }>(
      'changelog.webhooks.create',
      { url: 'https://hooks.example.com/changelog', secret: `${MARKER}-webhook-secret` },
      admin,
    )
    return [target.id]
  },
  async (admin) => {
    const box = new FakePowerDns('https://pdns.secrets.test', `${MARKER}-powerdns-key`)
    box.install()
    const ns = await write<{ id: string }>(
      'dnsServers.nameservers.enroll',
      {
        name: 'secret-ns',
        hostname: 'ns1.secrets.test',
        publicIpv4: '192.0.2.53',
        agentUrl: 'https://agent.secrets.test',
        agentSecret: `${MARKER}-ns-agent-secret`,
        powerDns: { apiUrl: box.apiUrl, apiKey: box.apiKey },
      },
      admin,
    )
    return [ns.id]
  },
]

describe('stored secrets', () => {
  it('should seal with AES-GCM under a key id and open with the previous key during a rotation', async () => {
    const sealed = await sealSecret(keys, 'hello')
    expect(sealed).toMatch(/^v1\.[0-9a-f]{8}\.[\w-]+\.[\w-]+$/)
    expect(sealed).not.toContain('hello')
    expect(await sealSecret(keys, 'hello')).not.toBe(sealed)
    expect(await openSecret({ ...nextKey, SECRETS_KEY_PREVIOUS: keys.SECRETS_KEY }, sealed)).toBe('hello')
    await expect(openSecret(nextKey, sealed)).rejects.toThrow(/no configured key/)
    const tampered = `${sealed.slice(0, -2)}AA`
    await expect(openSecret(keys, tampered)).rejects.toThrow()
  })

  it('should store secrets only as ciphertext and show the marker in no response of any procedure', async () => {
    const admin = await adminSession()
    interceptOutbound()
    const ids: string[] = []
    for (const seed of seeders) ids.push(...(await seed(admin)))
    const tables = await env.DB.prepare(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND substr(name, 1, 4) != '_cf_'",
    ).all<{
      name: string
    }>()
    for (const { name } of tables.results) {
      const rows = await env.DB.prepare(`SELECT * FROM "${name}"`).all()
      expect(JSON.stringify(rows.results), `table ${name}`).not.toContain(MARKER)
    }
    const inputs = [{}, ...ids.map((id) => ({ id }))]
    for (const [name, proc] of procedures) {
      if (proc.kind !== 'query') continue
      for (const input of inputs) {
        const res = await call(name, input, admin)
        expect(res.text, `${name} ${JSON.stringify(input)}`).not.toContain(MARKER)
      }
    }
    const audit = await call('audit.list', { limit: 200 }, admin)
    expect(audit.status).toBe(200)
    expect(audit.text).not.toContain(MARKER)
    // It calls every procedure in the registry, one after the other.
  }, 15_000)
})
