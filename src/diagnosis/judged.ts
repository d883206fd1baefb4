import type { PlannedRecord } from '../custom-hostnames/planner'
import { holds, recordsInTheWay } from '../dns-write/in-the-way'
import type { ObservedSet } from './schema'
import type { ZoneView } from './zone-read'

/** What the verdicts are judged from. */
export interface Judged {
  hostname: string
  expected: readonly PlannedRecord[]
  resolver: ObservedSet
  /** The zone the panel writes, when it writes one; null for a name only its customer's DNS holds. */
  zone: (ZoneView & { zoneName: string; writeComing: boolean }) | null
}

type Shown = { type: string; value: string }

/** Whether the panel's queued write changes a record itself: only then is a verdict `fixable`. */
export function fixer(judged: Judged) {
  const zone = judged.zone
  const clear =
    zone?.read === true && zone.writeComing && recordsInTheWay(judged.expected, zone.others).length === 0
  return {
    creates: (record: PlannedRecord) => clear && !holds(zone.present, record),
    deletes: (record: Shown) => clear && holds(zone.present, record) && !holds(zone.others, record),
    zoneName: zone?.zoneName ?? null,
  }
}

export type Fix = ReturnType<typeof fixer>
