import type { z } from '@hono/zod-openapi'
import { isConstraintError } from '../db/constraint-error'
import { routes } from '../db/schema/routes'
import { getInstance, getNode, getSite } from '../fleet/rows'
import type { ProcedureContext } from '../rpc/define'
import { conflict, invalid } from '../rpc/errors'
import { deviceNameOf, forwardConfig } from './render'
import { reservedPortProblem } from './reserved-ports'
import { getRoute, toRouteRow } from './rows'
import type { CreateRawInputSchema, RouteRow } from './schemas'
import { settleUpstream } from './upstreams'
import { bumpVersion, desiredVersion, enqueueReconcile } from './versions'

/**
 * Opens a raw forward on the instance's node, never on a port the node needs itself (see reserved-ports). The
 * unique index on (node, listen port, proto) among live routes
 * decides a port already forwarded, so two parallel opens of one port get one route and one 409.
 */
export async function createRaw(
  input: z.output<typeof CreateRawInputSchema>,
  ctx: ProcedureContext,
): Promise<RouteRow & { reconcileEnqueued: true }> {
  const instance = await getInstance(ctx.db, input.instanceId)
  if (input.siteId !== undefined && (await getSite(ctx.db, input.siteId)).instanceId !== instance.id) {
    throw invalid('siteId', `must be a site on instance ${instance.name}`)
  }
  const reserved = reservedPortProblem(input.listenPort, (await getNode(ctx.db, instance.nodeId)).agentUrl)
  if (reserved) throw invalid('listenPort', reserved)
  const proto = input.proto ?? 'tcp'
  const now = new Date()
  const id = crypto.randomUUID()
  try {
    await ctx.commit(
      [
        ...bumpVersion(ctx.db, instance.nodeId, now, { forward: { listenPort: input.listenPort, proto } }),
        ctx.db.insert(routes).values({
          id,
          nodeId: instance.nodeId,
          instanceId: instance.id,
          siteId: input.siteId ?? null,
          kind: 'raw',
          hostname: null,
          targetPort: input.targetPort,
          listenPort: input.listenPort,
          proto,
          deviceName: deviceNameOf(proto, input.listenPort),
          edgeConfig: forwardConfig(input.listenPort, proto, instance.address, input.targetPort),
          status: 'pending',
          configVersion: desiredVersion(instance.nodeId),
          createdAt: now,
          updatedAt: now,
        }),
        settleUpstream(ctx.db, id),
      ],
      {
        targetId: id,
        detail: {
          instanceId: instance.id,
          listenPort: input.listenPort,
          proto,
          targetPort: input.targetPort,
        },
      },
    )
  } catch (error) {
    if (isConstraintError(error, 'UNIQUE')) {
      throw conflict(
        `port ${input.listenPort}/${proto} is already forwarded on the node of instance ${instance.name}; remove that route first`,
      )
    }
    throw error
  }
  await enqueueReconcile(ctx.env, instance.nodeId)
  return { ...toRouteRow(await getRoute(ctx.db, id)), reconcileEnqueued: true }
}
