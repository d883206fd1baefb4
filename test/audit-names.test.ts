import { beforeAll, describe, expect, it } from 'vitest'
import { type Caller, ok } from './helpers/http'
import { adminSession, BOOTSTRAP, operatorSession } from './helpers/principals'

// audit.list names who acted and what they acted on, so the log reads without looking ids up.

interface Entry {
  action: string
  principal: { kind: string; id: string | null; name: string | null }
  targetId: string | null
  targetName: string | null
}

let admin: Caller

beforeAll(async () => {
  admin = await adminSession()
})

const node = (name: string) => ({
  name,
  agentUrl: 'https://agent.example.test:8443',
  agentSecret: 'agent-secret-0123456789',
  publicIpv4: '192.0.2.10',
})

async function entriesFor(caller: Caller, action: string, targetId: string): Promise<Entry[]> {
  return (await ok<{ entries: Entry[] }>('audit.list', { action, targetId }, caller)).entries
}

describe('audit.list names', () => {
  it("should name a token actor by the token's name and the node it created by the node's name", async () => {
    const minted = await ok<{ id: string; token: string; name: string }>(
      'tokens.create',
      { name: 'audit deploy script', permissions: ['fleet:manage', 'fleet:view'] },
      admin,
    )
    const created = await ok<{ id: string }>('nodes.create', node('audit-named-node'), {
      token: minted.token,
    })
    const [entry] = await entriesFor(admin, 'node.create', created.id)
    expect(entry).toMatchObject({
      principal: { kind: 'token', id: minted.id, name: 'audit deploy script' },
      targetId: created.id,
      targetName: 'audit-named-node',
    })
  })

  it("should name a session actor by the user's email, for an operator reading the log too", async () => {
    const created = await ok<{ id: string }>('nodes.create', node('audit-session-node'), admin)
    const operator = await operatorSession(admin)
    const [entry] = await entriesFor(operator, 'node.create', created.id)
    expect(entry?.principal).toMatchObject({ kind: 'session', name: BOOTSTRAP.email })
    expect(entry?.targetName).toBe('audit-session-node')
  })

  it('should keep the name its entry recorded once the target is gone, and null where nothing knows it', async () => {
    const email = `gone-${crypto.randomUUID().slice(0, 8)}@panel.test`
    const user = await ok<{ id: string }>(
      'users.create',
      { email, password: 'operator-password-123', role: 'operator' },
      admin,
    )
    await ok('users.remove', { id: user.id }, admin)
    const [removed] = await entriesFor(admin, 'user.remove', user.id)
    expect(removed?.targetName).toBe(email)
    // user.create recorded only the role: with the user gone, nothing names it.
    const [createdEntry] = await entriesFor(admin, 'user.create', user.id)
    expect(createdEntry?.targetName).toBeNull()
  })

  it('should name the targets of a long page in one answer', async () => {
    for (let i = 0; i < 3; i++) await ok('nodes.create', node(`audit-page-node-${i}`), admin)
    const page = await ok<{ entries: Entry[] }>('audit.list', { action: 'node.create', limit: 200 }, admin)
    const named = page.entries.filter((entry) => entry.targetName?.startsWith('audit-page-node-'))
    expect(named.map((entry) => entry.targetName).sort()).toEqual(
      [0, 1, 2].map((i) => `audit-page-node-${i}`),
    )
    expect(page.entries.every((entry) => entry.principal.name !== null)).toBe(true)
  })

  it('should name a status page and an incident on it by their titles', async () => {
    const page = await ok<{ id: string }>(
      'statusPages.create',
      { slug: `audit-${crypto.randomUUID().slice(0, 8)}`, title: 'Audit status page' },
      admin,
    )
    const incident = await ok<{ id: string }>(
      'statusPages.incidents.create',
      { statusPageId: page.id, title: 'Audit incident', impact: 'none', message: 'Looking.' },
      admin,
    )
    await ok('statusPages.incidents.update', { id: incident.id, state: 'resolved', message: 'Done.' }, admin)
    const [pageEntry] = await entriesFor(admin, 'status-page.create', page.id)
    expect(pageEntry?.targetName).toBe('Audit status page')
    for (const action of ['status-page.incident-create', 'status-page.incident-update']) {
      const [entry] = await entriesFor(admin, action, incident.id)
      expect(entry?.targetName, action).toBe('Audit incident')
    }
  })
})
