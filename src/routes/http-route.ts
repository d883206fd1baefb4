import { eq } from 'drizzle-orm'
import type { Vhost } from '../agent-contract/v1'
import type { BatchItem, Db } from '../db/client'
import { instances, sites } from '../db/schema/fleet'
import { routes } from '../db/schema/routes'
import { notFound } from '../rpc/errors'
import { DEFAULT_SITE_PORT, vhostConfig } from './render'
import { getRoute } from './rows'
import { settleUpstream } from './upstreams'
import { bumpVersion, changeOfRoute, desiredVersion } from './versions'

export { enqueueReconcile, queueReconcile, reachedVersion, versionIn } from './versions'

/** Writes for the caller's own batch, and the node whose reconcile to queue once that batch committed. */
export interface RouteWrites {
  routeId: string
  nodeId: string
  writes: BatchItem[]
}

/** The read of what a site's http route is built from: its instance's node and address, and its port. */
export function siteRouteChain(db: Db, siteId: string) {
  return db
    .select({
      instanceId: sites.instanceId,
      port: sites.port,
      nodeId: instances.nodeId,
      address: instances.address,
    })
    .from(sites)
    .innerJoin(instances, eq(instances.id, sites.instanceId))
    .where(eq(sites.id, siteId))
    .limit(1)
}

export type SiteRouteChain = Awaited<ReturnType<typeof siteRouteChain>>[number]

type RouteInput = { siteId: string; hostname: string; issuer: Vhost['issuer']; routeId?: string }

/**
 * The writes that route `hostname` to the site (its instance's address and the site's port, TLS on demand from
 * `issuer`), for the caller's batch beside its own row (a domain, a custom hostname that went active). After the
 * commit, call `enqueueReconcile(env, nodeId)`. A live route holding the hostname makes the batch fail on the
 * unique index (the hostname claim normally rules that out first). 404 when the site is gone.
 */
export async function addHttpRoute(db: Db, input: RouteInput): Promise<RouteWrites> {
  const [site] = await siteRouteChain(db, input.siteId)
  return httpRouteWrites(db, site, input)
}

/** `addHttpRoute` from the site's chain read beforehand (`siteRouteChain`, undefined when the site is gone: 404). */
export function httpRouteWrites(db: Db, site: SiteRouteChain | undefined, input: RouteInput): RouteWrites {
  if (!site) throw notFound(`site ${input.siteId}`)
  const now = new Date()
  const routeId = input.routeId ?? crypto.randomUUID()
  const targetPort = site.port ?? DEFAULT_SITE_PORT
  return {
    routeId,
    nodeId: site.nodeId,
    writes: [
      ...bumpVersion(db, site.nodeId, now, { vhost: input.hostname }),
      db.insert(routes).values({
        id: routeId,
        nodeId: site.nodeId,
        instanceId: site.instanceId,
        siteId: input.siteId,
        kind: 'http',
        hostname: input.hostname,
        targetPort,
        listenPort: null,
        proto: null,
        deviceName: null,
        edgeConfig: vhostConfig(input.hostname, site.address, targetPort, input.issuer),
        status: 'pending',
        configVersion: desiredVersion(site.nodeId),
        createdAt: now,
        updatedAt: now,
      }),
      settleUpstream(db, routeId),
    ],
  }
}

/**
 * The writes that take a route off its node: status `removed` at the node's next version, whose confirmation
 * deletes the row. For the caller's batch; then `enqueueReconcile(env, nodeId)`. 404 when the route is gone.
 */
export async function removeRoute(db: Db, routeId: string): Promise<RouteWrites> {
  const route = await getRoute(db, routeId)
  const now = new Date()
  return {
    routeId,
    nodeId: route.nodeId,
    writes: [
      ...bumpVersion(db, route.nodeId, now, changeOfRoute(route)),
      db
        .update(routes)
        .set({ status: 'removed', configVersion: desiredVersion(route.nodeId), updatedAt: now })
        .where(eq(routes.id, routeId)),
    ],
  }
}
