import { count, eq, inArray, max, ne } from 'drizzle-orm'
import type { CronTask } from '../../cron/task'
import { db } from '../../db/client'
import { nameservers, zoneBoxSync } from '../../db/schema/dns-servers'
import { nameserverSyncWatch } from '../../db/schema/notifications'
import { clearOperationalEvent, raiseOperationalEvent } from '../../notifications/operational'

/** How long a nameserver box stays out of sync before the installation hears of it. */
export const OUT_OF_SYNC_ALERT_MS = 10 * 60 * 1000

/** The operational event key of a nameserver box's sync. */
export function boxEventKey(nodeId: string): string {
  return `nameserver:${nodeId}`
}

/**
 * Each minute: which nameserver boxes hold a zone not synced. A box seen out of sync at every minute for
 * OUT_OF_SYNC_ALERT_MS raises `nameserver.out-of-sync`; the first minute it is in sync again clears it. A box
 * behind only between two samples (a change being written) is never seen.
 */
export const outOfSyncTask: CronTask = {
  name: 'nameserver out-of-sync watch',
  schedule: '* * * * *',
  async run(env, scheduledTime) {
    const now = new Date(scheduledTime)
    const database = db(env.DB)
    const [behind, watched] = await database.batch([
      database
        .select({
          nodeId: zoneBoxSync.nodeId,
          hostname: nameservers.hostname,
          zones: count(),
          lastError: max(zoneBoxSync.lastError),
        })
        .from(zoneBoxSync)
        .innerJoin(nameservers, eq(nameservers.nodeId, zoneBoxSync.nodeId))
        .where(ne(zoneBoxSync.state, 'synced'))
        .groupBy(zoneBoxSync.nodeId, nameservers.hostname),
      database.select().from(nameserverSyncWatch),
    ])
    const since = new Map(watched.map((row) => [row.nodeId, row.behindSince]))
    const synced = watched.filter((row) => !behind.some((box) => box.nodeId === row.nodeId))
    const fresh = behind.filter((box) => !since.has(box.nodeId))
    if (synced.length > 0)
      await database.delete(nameserverSyncWatch).where(
        inArray(
          nameserverSyncWatch.nodeId,
          synced.map((row) => row.nodeId),
        ),
      )
    if (fresh.length > 0)
      await database
        .insert(nameserverSyncWatch)
        .values(fresh.map((box) => ({ nodeId: box.nodeId, behindSince: now })))
        .onConflictDoNothing()
    for (const row of synced) await clearOperationalEvent(env, boxEventKey(row.nodeId), now)
    for (const box of behind) {
      const behindSince = since.get(box.nodeId)
      if (!behindSince || now.getTime() - behindSince.getTime() < OUT_OF_SYNC_ALERT_MS) continue
      await raiseOperationalEvent(
        env,
        {
          kind: 'nameserver.out-of-sync',
          key: boxEventKey(box.nodeId),
          subject: `Nameserver ${box.hostname} is out of sync`,
          detail: [
            `${box.zones} zone${box.zones === 1 ? '' : 's'} not synced on it since ${behindSince.toISOString()}.`,
            ...(box.lastError ? [`Last error: ${box.lastError}`] : []),
          ].join('\n'),
          link: '/dns/nameservers',
        },
        now,
      )
    }
  },
}
