import { beforeAll, describe, expect, it } from 'vitest'
import { type Caller, call, ok } from './helpers/http'
import { adminSession } from './helpers/principals'

// A node's agentHostname: the name its Caddy serves the agent's API under, which the panel then calls over
// HTTPS. The pair is kept consistent: agentUrl is https://<agentHostname> while the name is set.

let admin: Caller

beforeAll(async () => {
  admin = await adminSession()
})

interface NodeRow {
  id: string
  agentUrl: string
  agentHostname: string | null
}

type Issues = { issues: { path: string; message: string }[] }

const fields = (name: string, extra: Record<string, unknown>) => ({
  name,
  agentSecret: 'agent-secret-0123456789',
  agentUrl: 'https://agent.node-a.example.com',
  ...extra,
})

describe('nodes with an agent hostname', () => {
  it('should keep the hostname and call the agent at https://<agentHostname>, any port', async () => {
    const row = await ok<NodeRow>(
      'nodes.create',
      fields('agent-host-a', { agentHostname: 'agent.node-a.example.com' }),
      admin,
    )
    expect(row).toMatchObject({
      agentUrl: 'https://agent.node-a.example.com',
      agentHostname: 'agent.node-a.example.com',
    })
    expect(await ok<NodeRow>('nodes.get', { id: row.id }, admin)).toMatchObject({
      agentHostname: 'agent.node-a.example.com',
    })
    const withPort = await ok<NodeRow>(
      'nodes.update',
      { id: row.id, agentUrl: 'https://agent.node-a.example.com:8443/' },
      admin,
    )
    expect(withPort.agentUrl).toBe('https://agent.node-a.example.com:8443/')
    const plain = await ok<NodeRow>('nodes.create', fields('agent-host-none', {}), admin)
    expect(plain.agentHostname).toBeNull()
  })

  it('should refuse an agentUrl that is not https://<agentHostname>, naming agentUrl, and change nothing', async () => {
    // (An http URL is refused by the outbound rule before: production calls agents over https only.)
    for (const agentUrl of ['https://other.node-a.example.com', 'https://agent.node-a.example.com/agent']) {
      const res = await call<Issues>(
        'nodes.create',
        fields('agent-host-bad', { agentUrl, agentHostname: 'agent.node-a.example.com' }),
        admin,
      )
      expect(res.status, agentUrl).toBe(400)
      expect(res.body.issues).toEqual([
        {
          path: 'agentUrl',
          message: 'must be https://agent.node-a.example.com (a port may follow) while agentHostname is set',
        },
      ])
    }
    const nodes = await ok<NodeRow[]>('nodes.list', {}, admin)
    expect(nodes.map((n) => n.agentUrl)).not.toContain('https://other.node-a.example.com')
  })

  it('should check the pair as the update leaves it', async () => {
    const row = await ok<NodeRow>('nodes.create', fields('agent-host-b', {}), admin)
    const mismatched = await call<Issues>(
      'nodes.update',
      { id: row.id, agentHostname: 'agent.node-b.example.com' },
      admin,
    )
    expect(mismatched.status).toBe(400)
    expect(mismatched.body.issues[0]?.path).toBe('agentUrl')
    expect((await ok<NodeRow>('nodes.get', { id: row.id }, admin)).agentHostname).toBeNull()
    const both = await ok<NodeRow>(
      'nodes.update',
      { id: row.id, agentHostname: 'agent.node-b.example.com', agentUrl: 'https://agent.node-b.example.com' },
      admin,
    )
    expect(both.agentHostname).toBe('agent.node-b.example.com')
    const cleared = await ok<NodeRow>('nodes.update', { id: row.id, agentHostname: null }, admin)
    expect(cleared.agentHostname).toBeNull()
  })

  it('should refuse a hostname the node cannot serve, naming agentHostname', async () => {
    for (const agentHostname of ['Agent.Example.com', 'agent.example.com.', 'localhost']) {
      const res = await call<Issues>(
        'nodes.create',
        fields('agent-host-name', { agentHostname, agentUrl: `https://${agentHostname}` }),
        admin,
      )
      expect(res.status, agentHostname).toBe(400)
      expect(res.body.issues.map((issue) => issue.path)).toContain('agentHostname')
    }
  })
})
