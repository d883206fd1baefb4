import { eq } from 'drizzle-orm'
import { nameservers, zoneBoxSync } from '../db/schema/dns-servers'
import { nodes } from '../db/schema/fleet'
import { nodeHealthKey } from '../fleet/health-event'
import { clearOperationalEvent } from '../notifications/operational'
import type { ProcedureContext } from '../rpc/define'
import { assertRemovable } from './nameservers'
import { nameserverSet, replaceNameservers } from './ns-set'
import { getNameserverBox, hasPowerDns } from './rows'
import { enqueueZoneSync } from './sync-queue'
import { NOTHING_SETTLED } from './sync-state'

/**
 * Removes a box from the panel (its PowerDNS and data stay on the machine) and takes it out of every zone's NS
 * set on the boxes that remain, so no zone keeps pointing at a server the panel no longer writes to.
 */
export async function removeNameserver(ctx: ProcedureContext, id: string): Promise<void> {
  const { node, nameserver } = await getNameserverBox(ctx.db, id)
  await assertRemovable(ctx.db, node.id)
  const nsSet = hasPowerDns(nameserver)
    ? await replaceNameservers(
        ctx.db,
        ctx.env,
        (await nameserverSet(ctx.db)).filter((host) => host !== nameserver.hostname),
        node.id,
        new Date(),
      )
    : NOTHING_SETTLED
  await ctx.commit(
    [
      ...nsSet.writes,
      ctx.db.delete(zoneBoxSync).where(eq(zoneBoxSync.nodeId, node.id)),
      ctx.db.delete(nameservers).where(eq(nameservers.nodeId, node.id)),
      ctx.db.delete(nodes).where(eq(nodes.id, node.id)),
    ],
    { targetId: node.id, detail: { name: node.name, hostname: nameserver.hostname, nsBehind: nsSet.behind } },
  )
  await enqueueZoneSync(ctx.env, nsSet.jobs)
  // Its health ends with it (its sync watch ends at the next minute, with its sync rows gone).
  await clearOperationalEvent(ctx.env, nodeHealthKey(node.id))
}
