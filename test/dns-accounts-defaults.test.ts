import { beforeAll, describe, expect, it } from 'vitest'
import { type Caller, call, ok } from './helpers/http'
import { interceptOutbound } from './helpers/outbound'
import { adminSession } from './helpers/principals'

interface Resolved {
  account: { id: string } | null
  source: 'node' | 'instance' | 'domain' | null
}

let admin: Caller
let nodeId: string
let instanceId: string
let otherInstanceId: string
let gitA: string
let gitB: string
let gitC: string
let issuer: string

const githubToken = (n: number) => `ghp_${String(n).repeat(36).slice(0, 36)}`

async function gitAccount(name: string, n: number): Promise<string> {
  const row = await ok<{ id: string }>(
    'accounts.create',
    { kind: 'git', name, provider: 'github', token: githubToken(n) },
    admin,
  )
  return row.id
}

const setDefault = (scope: string, scopeId: string, accountId: string | null, kind = 'git') =>
  call('accounts.setDefault', { scope, scopeId, kind, accountId }, admin)

const resolve = (target: Record<string, string>, kind = 'git') =>
  ok<Resolved>('accounts.resolve', { kind, ...target }, admin)

beforeAll(async () => {
  // Git accounts are checked offline, so these tests need no provider fake; nothing may go out either.
  interceptOutbound()
  admin = await adminSession()
  nodeId = (
    await ok<{ id: string }>(
      'nodes.create',
      {
        name: 'cascade-node',
        agentUrl: 'https://agent.example.test',
        agentSecret: 'agent-secret-0123456789',
      },
      admin,
    )
  ).id
  instanceId = (
    await ok<{ id: string }>('instances.create', { nodeId, name: 'i1', address: '10.0.0.2' }, admin)
  ).id
  otherInstanceId = (
    await ok<{ id: string }>('instances.create', { nodeId, name: 'i2', address: '10.0.0.3' }, admin)
  ).id
  gitA = await gitAccount('git-a', 1)
  gitB = await gitAccount('git-b', 2)
  gitC = await gitAccount('git-c', 3)
  issuer = (
    await ok<{ id: string }>(
      'accounts.create',
      { kind: 'ssl-issuer', name: 'zerossl', provider: 'zerossl', token: 'a'.repeat(32) },
      admin,
    )
  ).id
})

describe('account defaults cascade', () => {
  it('should resolve nothing before any default is set', async () => {
    expect(await resolve({ instanceId })).toEqual({ account: null, source: null })
  })

  it('should let the most specific level win: instance over node, and walk an instance to its node', async () => {
    expect((await setDefault('node', nodeId, gitA)).status).toBe(200)
    const fromNode = await resolve({ instanceId })
    expect(fromNode.source).toBe('node')
    expect(fromNode.account?.id).toBe(gitA)

    const set = await setDefault('instance', instanceId, gitB)
    expect(set.status, set.text).toBe(200)
    expect(set.body).toEqual({ scope: 'instance', scopeId: instanceId, kind: 'git', accountId: gitB })
    const fromInstance = await resolve({ instanceId })
    expect(fromInstance).toMatchObject({ source: 'instance', account: { id: gitB } })
    expect(await resolve({ instanceId: otherInstanceId })).toMatchObject({
      source: 'node',
      account: { id: gitA },
    })
    expect(await resolve({ nodeId })).toMatchObject({ source: 'node', account: { id: gitA } })
  })

  it('should keep kinds apart', async () => {
    expect(await resolve({ instanceId }, 'ssl-issuer')).toEqual({ account: null, source: null })
    expect((await setDefault('node', nodeId, issuer, 'ssl-issuer')).status).toBe(200)
    expect(await resolve({ instanceId }, 'ssl-issuer')).toMatchObject({
      source: 'node',
      account: { id: issuer },
    })
    expect((await resolve({ instanceId })).account?.id).toBe(gitB)
  })

  it('should replace a default at the same level and fall back to the next level when one is cleared', async () => {
    expect((await setDefault('instance', instanceId, gitC)).status).toBe(200)
    expect((await resolve({ instanceId })).account?.id).toBe(gitC)
    const cleared = await setDefault('instance', instanceId, null)
    expect(cleared.status, cleared.text).toBe(200)
    expect(cleared.body).toMatchObject({ accountId: null })
    expect(await resolve({ instanceId })).toMatchObject({ source: 'node', account: { id: gitA } })
  })

  it('should accept domain defaults, which for now resolve only from their own domain', async () => {
    expect((await setDefault('domain', 'domain-1', gitC)).status).toBe(200)
    expect(await resolve({ domainId: 'domain-1' })).toMatchObject({ source: 'domain', account: { id: gitC } })
    expect(await resolve({ domainId: 'domain-2' })).toEqual({ account: null, source: null })
    expect((await setDefault('domain', 'domain-1', null)).status).toBe(200)
  })

  it('should 404 an unknown node, instance or account, and 400 an account of another kind', async () => {
    const badNode = await setDefault('node', 'no-such-node', gitA)
    expect(badNode.status, badNode.text).toBe(404)
    const badInstance = await setDefault('instance', 'no-such-instance', gitA)
    expect(badInstance.status, badInstance.text).toBe(404)
    const badAccount = await setDefault('node', nodeId, 'no-such-account')
    expect(badAccount.status, badAccount.text).toBe(404)
    const wrongKind = await setDefault('node', nodeId, issuer, 'git')
    expect(wrongKind.status, wrongKind.text).toBe(400)
    expect(wrongKind.text).toContain('is a ssl-issuer account, not git')
    const resolveMissing = await call(
      'accounts.resolve',
      { kind: 'git', instanceId: 'no-such-instance' },
      admin,
    )
    expect(resolveMissing.status, resolveMissing.text).toBe(404)
  })

  it('should ask for exactly one target when resolving', async () => {
    const none = await call('accounts.resolve', { kind: 'git' }, admin)
    expect(none.status, none.text).toBe(400)
    expect(none.body).toMatchObject({
      issues: [{ path: 'nodeId', message: 'give exactly one of nodeId, instanceId and domainId' }],
    })
    const two = await call('accounts.resolve', { kind: 'git', nodeId, instanceId }, admin)
    expect(two.status, two.text).toBe(400)
    expect(two.body).toMatchObject({
      issues: [{ path: 'instanceId', message: 'give exactly one of nodeId, instanceId and domainId' }],
    })
  })

  it('should audit setting and clearing a default', async () => {
    const audit = await ok<{ entries: { targetId: string; detail: Record<string, unknown> }[] }>(
      'audit.list',
      { action: 'account.set-default', targetId: instanceId },
      admin,
    )
    expect(audit.entries.map((entry) => entry.detail.accountId)).toEqual([null, gitC, gitB])
  })
})

describe('accounts.remove while a default uses the account', () => {
  it('should answer 409 naming the default, and remove once the default is cleared', async () => {
    const blocked = await call('accounts.remove', { id: gitA }, admin)
    expect(blocked.status, blocked.text).toBe(409)
    expect(blocked.text).toContain(`the default of node ${nodeId}`)
    expect((await call('accounts.get', { id: gitA }, admin)).status).toBe(200)
    expect((await setDefault('node', nodeId, null)).status).toBe(200)
    const removed = await call('accounts.remove', { id: gitA }, admin)
    expect(removed.status, removed.text).toBe(200)
    expect(await resolve({ instanceId })).toEqual({ account: null, source: null })
  })

  it('should let a default left on a removed node be cleared, so the account can go', async () => {
    const node = await ok<{ id: string }>(
      'nodes.create',
      {
        name: 'short-lived',
        agentUrl: 'https://agent2.example.test',
        agentSecret: 'agent-secret-0123456789',
      },
      admin,
    )
    expect((await setDefault('node', node.id, gitB)).status).toBe(200)
    await ok('nodes.remove', { id: node.id }, admin)
    expect((await call('accounts.remove', { id: gitB }, admin)).status).toBe(409)
    expect((await setDefault('node', node.id, null)).status).toBe(200)
    expect((await call('accounts.remove', { id: gitB }, admin)).status).toBe(200)
  })
})
