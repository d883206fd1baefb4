import type { PlannedRecord } from '../custom-hostnames/planner'
import type { PresentRecord } from '../dns-write/name-writer'
import type { Fix, Judged } from './judged'
import type { ObservedRecord, ObservedSet } from './schema'

// The detail of each verdict, in plain words: what is wrong and, unless the panel's next write fixes it, what to
// change where.

type Shown = { type: string; value: string }

const show = (record: Shown) => `${record.type} ${record.value}`
const where = (fix: Fix) => (fix.zoneName ? `in the DNS of the zone ${fix.zoneName}` : 'at your DNS provider')
const byThePanel = (fix: Fix) =>
  `The panel fixes this with its next write into the zone ${fix.zoneName}, already queued.`

export const ok = (record: PlannedRecord) => `${record.name} has ${show(record)}, as planned.`

export function missing(record: PlannedRecord, fix: Fix): string {
  const what = `${record.name} has no ${record.type} record.`
  return fix.creates(record) ? `${what} ${byThePanel(fix)}` : `${what} Add ${show(record)} ${where(fix)}.`
}

export function wrong(record: PlannedRecord, found: readonly string[], fix: Fix): string {
  const what = `${record.name} has ${found.map((value) => `${record.type} ${value}`).join(', ')}, not ${record.value}.`
  if (fix.creates(record)) return `${what} ${byThePanel(fix)}`
  return `${what} Change it to ${show(record)} ${where(fix)}${found.length > 1 ? ', and delete the others' : ''}.`
}

// Why a record in the way matters, by what it is and what was planned.
function harm(judged: Judged, record: Shown): string {
  const plannedCname = judged.expected.some((r) => r.type === 'CNAME')
  if (plannedCname) return 'a CNAME cannot be added beside it'
  if (record.type === 'CNAME') return 'the planned addresses cannot be added beside it'
  if (record.type === 'AAAA' && !judged.expected.some((r) => r.type === 'AAAA'))
    return 'visitors over IPv6, and the certificate authority, which prefers IPv6, reach another server: the certificate is refused or traffic splits'
  return 'part of the visitors, and possibly the certificate authority, reach another server: the certificate is refused or traffic splits'
}

export function inTheWay(judged: Judged, record: Shown, fix: Fix): string {
  const what = `${judged.hostname} still has ${show(record)}, which the plan does not hold: ${harm(judged, record)}.`
  if (fix.deletes(record))
    return `${what} The panel wrote it for an older plan and deletes it with its next write into the zone ${fix.zoneName}, already queued.`
  return `${what} Delete it ${where(fix)}; the panel never deletes records it did not create.`
}

export function cnameBeside(
  hostname: string,
  cname: PresentRecord,
  beside: readonly PresentRecord[],
  fix: Fix,
  fixable: boolean,
) {
  const what = `${hostname} has ${show(cname)} beside ${beside.map(show).join(', ')}: a CNAME must stand alone, and resolvers answer either at random.`
  return fixable ? `${what} ${byThePanel(fix)}` : `${what} Keep only the planned records ${where(fix)}.`
}

export const staleAcme = (hostname: string, record: ObservedRecord) =>
  `${record.name} holds ${show(record)}, which the panel's node did not create: it proves control of ${hostname} over HTTP and never uses this name. If it is left from another service or an old certificate, delete it; a CNAME here lets whoever it points to obtain certificates for ${hostname}.`

export const resolverFailed = (resolver: ObservedSet) =>
  `No answer to judge by: ${resolver.error}. This says nothing about the records; the panel looks again on the next check.`
