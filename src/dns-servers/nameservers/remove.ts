import { eq } from 'drizzle-orm'
import { commitGuarded, failUnless } from '../../db/batch-guard'
import { nameservers, zoneBoxSync } from '../../db/schema/dns-servers'
import { nodes } from '../../db/schema/fleet'
import { nodeHealthKey } from '../../fleet/health-event'
import { clearOperationalEvent } from '../../notifications/operational'
import { assertNoProbeChecksFrom, noProbeChecksFrom } from '../../probes/locations/nodes'
import type { ProcedureContext } from '../../rpc/define'
import { conflict } from '../../rpc/errors'
import { getNameserverBox, hasPowerDns } from '../rows'
import { enqueueZoneSync } from '../sync/queue'
import { NOTHING_SETTLED } from '../sync/state'
import { assertRemovable } from './nameservers'
import { nameserverSet, replaceNameservers } from './ns-set'

/**
 * Removes a box from the panel (its PowerDNS and data stay on the machine) and takes it out of every zone's NS
 * set on the boxes that remain, so no zone keeps pointing at a server the panel no longer writes to.
 */
export async function removeNameserver(ctx: ProcedureContext, id: string): Promise<void> {
  const { node, nameserver } = await getNameserverBox(ctx.db, id)
  await assertRemovable(ctx.db, node.id)
  await assertNoProbeChecksFrom(ctx.db, node)
  const nsSet = hasPowerDns(nameserver)
    ? await replaceNameservers(
        ctx.db,
        ctx.env,
        (await nameserverSet(ctx.db)).filter((host) => host !== nameserver.hostname),
        node.id,
        new Date(),
      )
    : NOTHING_SETTLED
  await commitGuarded(
    ctx.commit(
      [
        failUnless(ctx.db, noProbeChecksFrom(node.id), 'probes check from the node'),
        ...nsSet.writes,
        ctx.db.delete(zoneBoxSync).where(eq(zoneBoxSync.nodeId, node.id)),
        ctx.db.delete(nameservers).where(eq(nameservers.nodeId, node.id)),
        ctx.db.delete(nodes).where(eq(nodes.id, node.id)),
      ],
      {
        targetId: node.id,
        detail: { name: node.name, hostname: nameserver.hostname, nsBehind: nsSet.behind },
      },
    ),
    async () => {
      await assertNoProbeChecksFrom(ctx.db, node)
      return conflict(`nameserver ${node.name} changed while it was being removed; try again`)
    },
  )
  await enqueueZoneSync(ctx.env, nsSet.jobs)
  // Its health ends with it (its sync watch ends at the next minute, with its sync rows gone).
  await clearOperationalEvent(ctx.env, nodeHealthKey(node.id))
}
