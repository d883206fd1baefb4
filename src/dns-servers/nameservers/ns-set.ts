import type { Db } from '../../db/client'
import { dnsZones } from '../../db/schema/dns-servers'
import type { Env } from '../../env'
import { nameserverChange } from '../records/records'
import { boxEntriesByZone, hasPowerDns, listNameserverBoxes } from '../rows'
import { writeToBoxes } from '../sync/fan-out'
import { mergeSettled, NOTHING_SETTLED, type Settled } from '../sync/state'
import { pushChange } from '../zones/change'
import { liveBoxes } from './box-clients'

/** The NS set every zone publishes: the host names of the boxes with PowerDNS, sorted. */
export async function nameserverSet(db: Db): Promise<string[]> {
  return (await listNameserverBoxes(db))
    .filter((box) => hasPowerDns(box.nameserver))
    .map((box) => box.nameserver.hostname)
    .sort()
}

/**
 * Makes `hostnames` the apex NS set of every zone, written to each zone's boxes (but `leaving`, a box on its way
 * out) through the change path, so a box that misses it gets a job. Returns the settle writes for the caller's
 * commit.
 */
export async function replaceNameservers(
  db: Db,
  env: Env,
  hostnames: readonly string[],
  leaving: string | null,
  now: Date,
): Promise<Settled> {
  if (hostnames.length === 0) return NOTHING_SETTLED
  const [zones, entries] = await Promise.all([db.select().from(dnsZones), boxEntriesByZone(db)])
  const settled = await Promise.all(
    zones.map(async (zone) => {
      const serving = (entries.get(zone.id) ?? []).filter((entry) => entry.node.id !== leaving)
      const boxes = await liveBoxes(env, serving)
      const change = nameserverChange(zone.name, [...hostnames].sort())
      return pushChange(
        db,
        zone.id,
        boxes,
        (targets) =>
          writeToBoxes(targets, async (box) => {
            await box.client.patchRRsets(zone.name, [change])
            if (zone.dnssec) await box.client.rectify(zone.name)
          }),
        now,
      )
    }),
  )
  return mergeSettled(settled)
}
