import { type HostnameWindow, hostnameWindowKey } from '../../src/custom-hostnames/rate-limits'
import { type Caller, ok } from '../helpers/http'

export interface SiteFixture {
  nodeId: string
  instanceId: string
  siteId: string
  /** A site token of this site with both custom-hostnames permissions. */
  app: Caller & { tokenId: string }
}

let count = 0

/** A node with a DNS target and addresses, an instance and a site on it, and a site token for that site. */
export async function siteWithToken(
  admin: Caller,
  node: { dnsTarget?: string | null; publicIpv4?: string | null; publicIpv6?: string | null } = {},
): Promise<SiteFixture> {
  const label = `ch${++count}-${crypto.randomUUID().slice(0, 6)}`
  const created = await ok<{ id: string }>(
    'nodes.create',
    {
      name: `${label}-node`,
      agentUrl: `https://agent.${label}.example.com`,
      agentSecret: 'agent-secret-0123456789',
      dnsTarget: node.dnsTarget === undefined ? `edge.${label}.example.net` : node.dnsTarget,
      publicIpv4: node.publicIpv4 === undefined ? '203.0.113.10' : node.publicIpv4,
      publicIpv6: node.publicIpv6 === undefined ? null : node.publicIpv6,
    },
    admin,
  )
  const instance = await ok<{ id: string }>(
    'instances.create',
    { nodeId: created.id, name: 'app', address: '10.0.0.5' },
    admin,
  )
  const site = await ok<{ id: string }>('sites.create', { instanceId: instance.id, name: label }, admin)
  const minted = await ok<{ id: string; token: string }>(
    'sites.tokens.create',
    { siteId: site.id, name: 'saas app' },
    admin,
  )
  return {
    nodeId: created.id,
    instanceId: instance.id,
    siteId: site.id,
    app: { token: minted.token, tokenId: minted.id },
  }
}

/** A zone name under a real public suffix, so the hostname rules accept names in it. */
export function zoneName(label: string): string {
  return `${label}-${crypto.randomUUID().slice(0, 8)}.com`
}

/** The name of the RateLimiter that keeps one of the site token's custom-hostnames windows. */
export function siteTokenWindow(site: SiteFixture, window: HostnameWindow): string {
  return hostnameWindowKey(window, {
    kind: 'site-token',
    tokenId: site.app.tokenId,
    userId: '',
    siteId: site.siteId,
    permissions: new Set(),
  })
}
