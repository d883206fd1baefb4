import type { Db } from '../db/client'
import type { LiveBox } from '../dns-servers/nameservers/box-clients'
import type { ZoneRecord } from '../dns-servers/rows'
import { writeToBoxes } from '../dns-servers/sync/fan-out'
import { writeChange } from '../dns-servers/zones/change'
import type { Env } from '../env'
import type { RRsetChange } from '../outside/powerdns'

/**
 * Writes record changes into a self-hosted zone through its write path (every box, re-signed when DNSSEC is on).
 * Every up-to-date box refusing the data itself comes back as validation_failed: a final answer.
 */
export function applyHostedChanges(
  db: Db,
  env: Env,
  { zone, boxes }: { zone: ZoneRecord; boxes: LiveBox[] },
  changes: RRsetChange[],
) {
  return writeChange(
    db,
    env,
    zone.id,
    boxes,
    (targets) =>
      writeToBoxes(targets, async (box) => {
        await box.client.patchRRsets(zone.name, changes)
        if (zone.dnssec) await box.client.rectify(zone.name)
      }),
    () => 'records',
    new Date(),
  )
}
