import { beforeAll, describe, expect, it } from 'vitest'
import { type Caller, call, ok } from './helpers/http'
import { interceptOutbound } from './helpers/outbound'
import { adminSession } from './helpers/principals'

interface Problem {
  code: string
  detail: string
  issues?: { path: string }[]
}

let admin: Caller
let nodeId: string
let instanceId: string
let releaseId: string

const nodeInput = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  agentUrl: 'https://agent.example.test',
  agentSecret: 'agent-secret-0123456789',
  ...extra,
})

async function refused(name: string, input: unknown, field: string): Promise<Problem> {
  const res = await call<Problem>(name, input, admin)
  expect(res.status, res.text).toBe(400)
  expect(res.body.code).toBe('validation_failed')
  expect(res.body.issues?.map((issue) => issue.path)).toContain(field)
  return res.body
}

beforeAll(async () => {
  interceptOutbound()
  admin = await adminSession()
  nodeId = (await ok<{ id: string }>('nodes.create', nodeInput('hygiene-node'), admin)).id
  instanceId = (
    await ok<{ id: string }>('instances.create', { nodeId, name: 'hygiene-i', address: '10.0.0.2' }, admin)
  ).id
  releaseId = (
    await ok<{ id: string }>(
      'changelog.releases.create',
      { version: '30.0.0', title: 'Hygiene', severity: 'minor' },
      admin,
    )
  ).id
})

const unsafeNames = [
  ['a NUL byte', 'nul\u0000byte'],
  ['a C0 control', 'bell\u0007'],
  ['a C1 control', 'next\u0085line'],
  ['a right-to-left override', 'evil\u202Etxt.exe'],
  ['a bidi isolate', 'iso\u2066late'],
  ['a zero-width space', 'zero\u200Bwidth'],
  ['a zero-width joiner', 'zero\u200Djoiner'],
  ['a lone surrogate', '\uD800lone'],
] as const

describe('names', () => {
  it.each(unsafeNames)('should refuse %s in node, instance, site and account names', async (_what, name) => {
    await refused('nodes.create', nodeInput(name), 'name')
    await refused('nodes.update', { id: nodeId, name }, 'name')
    await refused('instances.create', { nodeId, name, address: '10.0.0.3' }, 'name')
    await refused('sites.create', { instanceId, name }, 'name')
    await refused(
      'accounts.create',
      { kind: 'git', name, provider: 'github', token: `ghp_${'1'.repeat(36)}` },
      'name',
    )
  })

  it('should accept a name in any script, with accents and spaces', async () => {
    const row = await ok<{ name: string }>('nodes.create', nodeInput('Ünïcode 東京 ノード'), admin)
    expect(row.name).toBe('Ünïcode 東京 ノード')
  })
})

describe('release plain text', () => {
  const unsafeTexts = [
    ['a C1 next-line control', 'Fixed\u0085the thing'],
    ['a C1 control sequence introducer', 'Fixed \u009B31m the thing'],
    ['a right-to-left override', 'Fixed \u202Ethe thing'],
    ['a bidi isolate', 'Fixed \u2067the thing'],
    ['a legacy entity without a semicolon', 'Fixed &ltscript&gt'],
    ['&amp followed by letters', 'Fixed &ampfoo'],
    ['a numeric entity without a semicolon', 'Fixed &#60script'],
    ['a hexadecimal entity without a semicolon', 'Fixed &#x3Cscript'],
  ] as const

  it.each(unsafeTexts)('should refuse %s in a title, summary and item', async (_what, text) => {
    await refused('changelog.releases.update', { id: releaseId, title: text }, 'title')
    await refused('changelog.releases.update', { id: releaseId, summary: text }, 'summary')
    await refused('changelog.releases.update', { id: releaseId, items: [{ text }] }, 'items.0.text')
  })

  it('should accept ampersands that are no entity', async () => {
    const row = await ok<{ title: string }>(
      'changelog.releases.update',
      { id: releaseId, title: 'R&D and AT&T & friends' },
      admin,
    )
    expect(row.title).toBe('R&D and AT&T & friends')
  })
})

describe('lengths', () => {
  const longUrl = `https://agent.example.test/${'a'.repeat(2100)}`

  it('should refuse URLs over 2048 characters, naming the field', async () => {
    await refused('nodes.create', nodeInput('long-url', { agentUrl: longUrl }), 'agentUrl')
    await refused(
      'changelog.webhooks.create',
      { url: longUrl, secret: 'target-secret-0123456789abcdef' },
      'url',
    )
  })

  it('should refuse a huge id with 400 and never echo it', async () => {
    const id = 'x'.repeat(60_000)
    for (const name of ['nodes.get', 'changelog.releases.get', 'instances.remove', 'accounts.get']) {
      const res = await call<Problem>(name, { id }, admin)
      expect(res.status, name).toBe(400)
      expect(res.text.length, name).toBeLessThan(2_000)
    }
  })
})
