import { customHostnames } from '../../src/db/schema/custom-hostnames'
import { domains } from '../../src/db/schema/domains'
import { routes } from '../../src/db/schema/routes'
import { asArray, field, ids, insertEach, type SeedContext, TIED_TIMES } from './seed-kit'

/** Custom hostnames, a site's and an instance's routes, and domains. */
export async function seedHostingLists({ site, now, tag, newest }: SeedContext): Promise<void> {
  const hostnameIds = ids('hostname')
  await insertEach(
    customHostnames,
    hostnameIds.map((id, i) => ({
      id,
      siteId: site.siteId,
      hostname: `shop${i}.${tag}.customer.example`,
      tier: 'external' as const,
      state: 'instructions' as const,
      reason: 'external-zone',
      zoneName: `${tag}.customer.example`,
      records: [],
      generation: 1,
      attempts: 0,
      dnsResolves: false,
      createdAt: new Date(TIED_TIMES[i] ?? 0),
      updatedAt: now,
    })),
  )
  newest('customHostnames.list', hostnameIds, {
    input: { siteId: site.siteId },
    caller: site.app,
    exclusive: true,
    shape: 'object',
    rowsOf: field('hostnames'),
  })

  const routeIds = ids('route')
  await insertEach(
    routes,
    routeIds.map((id, i) => ({
      id,
      nodeId: site.nodeId,
      instanceId: site.instanceId,
      siteId: site.siteId,
      kind: 'raw' as const,
      targetPort: 8000 + i,
      listenPort: 20000 + i,
      proto: 'tcp' as const,
      edgeConfig: { vhost: null, forward: null, appliedVersion: null, firewallManaged: null, error: null },
      status: 'pending' as const,
      configVersion: 1,
      createdAt: new Date(TIED_TIMES[i] ?? 0),
      updatedAt: now,
    })),
  )
  newest('routes.listForSite', routeIds, {
    input: { siteId: site.siteId },
    exclusive: true,
    shape: 'array',
    rowsOf: asArray,
  })
  newest('routes.listForInstance', routeIds, {
    input: { instanceId: site.instanceId },
    exclusive: true,
    shape: 'array',
    rowsOf: asArray,
  })

  const domainIds = ids('domain')
  await insertEach(
    domains,
    domainIds.map((id, i) => ({
      id,
      siteId: site.siteId,
      hostname: `www${i}.${tag}.domains.example`,
      driver: 'manual' as const,
      dnsState: 'pending' as const,
      issuer: 'pebble' as const,
      certState: 'none' as const,
      proxied: false,
      verification: [],
      records: [],
      written: [],
      step: 'dns-verify' as const,
      generation: 1,
      attempts: 0,
      stepStartedAt: now,
      createdAt: new Date(TIED_TIMES[i] ?? 0),
      updatedAt: now,
    })),
  )
  newest('domains.list', domainIds, {
    input: { siteId: site.siteId },
    exclusive: true,
    shape: 'object',
    rowsOf: field('domains'),
  })
}
