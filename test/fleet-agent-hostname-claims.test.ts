import { describe, expect, it } from 'vitest'
import { type DomainWorld, domainWorld } from './domains/fixture'
import { call, ok } from './helpers/http'

// A node's agentHostname is where its Caddy serves the agent's API; a site's domain or custom hostname on the same
// name would take its DNS and vhost. Neither side may take a name the other holds, whichever writes first.

interface Problem {
  code: string
  detail: string
}

const uniqueName = (label: string) => `${label}.${crypto.randomUUID().slice(0, 8)}-agents.com`

function agentNode(world: DomainWorld, name: string, agentHostname: string | null) {
  return call<{ id: string }>(
    'nodes.create',
    {
      name,
      agentUrl: agentHostname ? `https://${agentHostname}` : 'https://agent.plain.example.com',
      agentHostname,
      agentSecret: 'agent-secret-0123456789',
    },
    world.admin,
  )
}

const attach = (world: DomainWorld, hostname: string) =>
  call<Problem>('domains.attach', { siteId: world.site.siteId, hostname, driver: 'manual' }, world.admin)

describe("a node's agentHostname and a site's hostnames", () => {
  it('should refuse to attach a domain on a node agent hostname, naming the node, and keep no claim', async () => {
    const world = await domainWorld()
    const hostname = uniqueName('agent')
    const node = await agentNode(world, `agent-claims-${crypto.randomUUID().slice(0, 6)}`, hostname)
    expect(node.status, node.text).toBe(200)
    const refused = await attach(world, hostname)
    expect(refused.status, refused.text).toBe(409)
    expect(refused.body.code).toBe('conflict')
    expect(refused.body.detail).toContain(`${hostname} is the agentHostname of node agent-claims-`)
    // Nothing was kept: once the node lets the name go, the same attach goes through.
    await ok(
      'nodes.update',
      { id: node.body.id, agentHostname: null, agentUrl: 'https://agent.plain.example.com' },
      world.admin,
    )
    expect((await attach(world, hostname)).status).toBe(200)
  })

  it('should refuse a node agent hostname that a site holds as a domain or a custom hostname, changing nothing', async () => {
    const world = await domainWorld()
    const domain = uniqueName('shop')
    expect((await attach(world, domain)).status).toBe(200)
    const custom = uniqueName('tenant')
    await ok('customHostnames.register', { siteId: world.site.siteId, hostname: custom }, world.site.app)
    const name = `agent-claims-${crypto.randomUUID().slice(0, 6)}`

    const created = await agentNode(world, name, domain)
    expect(created.status, created.text).toBe(409)
    expect((created.body as unknown as Problem).detail).toContain(
      `agentHostname ${domain} is a domain of site ${world.site.siteId}`,
    )
    const nodes = await ok<{ name: string }[]>('nodes.list', { limit: 100 }, world.admin)
    expect(nodes.map((n) => n.name)).not.toContain(name)

    const plain = await agentNode(world, name, null)
    const updated = await call<Problem>(
      'nodes.update',
      { id: plain.body.id, agentHostname: custom, agentUrl: `https://${custom}` },
      world.admin,
    )
    expect(updated.status, updated.text).toBe(409)
    expect(updated.body.detail).toContain(`agentHostname ${custom} is a custom hostname of site`)
    const after = await ok<{ agentHostname: string | null }>('nodes.get', { id: plain.body.id }, world.admin)
    expect(after.agentHostname).toBeNull()
  })

  it('should let only one of an attach and a node update on the same name land when they race', async () => {
    const world = await domainWorld()
    for (let round = 0; round < 4; round++) {
      const hostname = uniqueName(`race${round}`)
      const node = await agentNode(world, `agent-race-${crypto.randomUUID().slice(0, 6)}`, null)
      const [attached, updated] = await Promise.all([
        attach(world, hostname),
        call(
          'nodes.update',
          { id: node.body.id, agentHostname: hostname, agentUrl: `https://${hostname}` },
          world.admin,
        ),
      ])
      expect([attached.status, updated.status].sort(), `${attached.text} ${updated.text}`).toEqual([200, 409])
    }
  })
})
