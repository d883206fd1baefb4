import { env } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import { openSecret, sealSecret } from '../src/lib/secrets'
import { procedures } from '../src/rpc/registry'
import { type Caller, call, ok } from './helpers/http'
import { adminSession } from './helpers/principals'

const MARKER = 'SECRET-MARKER-7f3a9c'
const keys = { SECRETS_KEY: 'dGVzdC1zZWNyZXRzLWtleS0zMi1ieXRlcy1sb25nISE' }
const nextKey = { SECRETS_KEY: 'bmV4dC1zZWNyZXRzLWtleS0zMi1ieXRlcy1sb25nISE' }

/** Each seeder stores one kind of secret carrying the marker and returns the ids it created. */
const seeders: ((admin: Caller) => Promise<string[]>)[] = [
  async (admin) => {
    const n = await ok<{ id: string }>(
      'nodes.create',
      { name: 'secret-node', agentUrl: 'https://agent.test', agentSecret: `${MARKER}-agent-secret` },
      admin,
    )
    await ok('nodes.update', { id: n.id, agentSecret: `${MARKER}-rotated-agent-secret` }, admin)
    return [n.id]
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
    const ids = (await Promise.all(seeders.map((seed) => seed(admin)))).flat()
    const dump = await env.DB.prepare("SELECT group_concat(agent_secret_sealed, '|') AS s FROM nodes").first<{
      s: string
    }>()
    expect(dump?.s).not.toContain(MARKER)
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
  })
})
