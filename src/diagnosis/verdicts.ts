import { holds } from '../dns-write/in-the-way'
import { sameValue } from '../dns-write/name-writer'
import { fixer, type Judged } from './judged'
import type { ObservedRecord, Verdict } from './schema'
import * as say from './words'

const isAcme = (record: ObservedRecord) => record.name.startsWith('_acme-challenge.') || record.type === 'TXT'

/**
 * Whether the panel's next write fixes a verdict about `record`: a write is queued, the zone was read and holds
 * nothing of someone else's in the way (the write job fails the row on such a record and never deletes it), and
 * the write changes the record: it creates a missing one, deletes one the panel wrote for an older plan.
 */
function verdict(
  kind: Verdict['kind'],
  type: Verdict['type'],
  name: string,
  expected: string | null,
  observed: string[],
  fixable: boolean,
  detail: string,
): Verdict {
  return { kind, type, name, expected, observed, fixable, detail }
}

// One verdict per planned record of `type`; values of that type beside a planned one that is there stand in the way.
function addressVerdicts(judged: Judged, type: 'A' | 'AAAA', found: readonly string[]): Verdict[] {
  const { hostname } = judged
  const fix = fixer(judged)
  const planned = judged.expected.filter((record) => record.type === type)
  const verdicts = planned.map((record) => {
    if (found.some((value) => sameValue(value, record.value)))
      return verdict('ok', type, hostname, record.value, [record.value], false, say.ok(record))
    if (found.length === 0)
      return verdict(
        'missing',
        type,
        hostname,
        record.value,
        [],
        fix.creates(record),
        say.missing(record, fix),
      )
    return verdict(
      'wrong',
      type,
      hostname,
      record.value,
      [...found],
      fix.creates(record),
      say.wrong(record, found, fix),
    )
  })
  const present = planned.some((record) => found.some((value) => sameValue(value, record.value)))
  if (planned.length > 0 && !present) return verdicts
  const extra = found.filter((value) => !planned.some((record) => sameValue(record.value, value)))
  return [
    ...verdicts,
    ...extra.map((value) =>
      verdict(
        'in-the-way',
        type,
        hostname,
        null,
        [value],
        fix.deletes({ type, value }),
        say.inTheWay(judged, { type, value }, fix),
      ),
    ),
  ]
}

function resolverVerdicts(judged: Judged): Verdict[] {
  const { hostname, resolver } = judged
  const fix = fixer(judged)
  const records = resolver.records.filter((record) => !isAcme(record))
  const cname = records.find((record) => record.type === 'CNAME' && record.name === hostname)
  const addresses = (type: 'A' | 'AAAA') => records.filter((r) => r.type === type).map((r) => r.value)
  const plannedCname = judged.expected.find((record) => record.type === 'CNAME')
  if (!plannedCname) {
    const inTheWay = cname
      ? [
          verdict(
            'in-the-way',
            'CNAME',
            hostname,
            null,
            [cname.value],
            fix.deletes(cname),
            say.inTheWay(judged, cname, fix),
          ),
        ]
      : []
    return [
      ...inTheWay,
      ...addressVerdicts(judged, 'A', addresses('A')),
      ...addressVerdicts(judged, 'AAAA', addresses('AAAA')),
    ]
  }
  if (cname && sameValue(cname.value, plannedCname.value))
    return [verdict('ok', 'CNAME', hostname, plannedCname.value, [cname.value], false, say.ok(plannedCname))]
  if (cname)
    return [
      verdict(
        'wrong',
        'CNAME',
        hostname,
        plannedCname.value,
        [cname.value],
        fix.creates(plannedCname),
        say.wrong(plannedCname, [cname.value], fix),
      ),
    ]
  // No CNAME: the addresses are the hostname's own, and each keeps the CNAME from being added.
  const others = records.filter((record) => record.type === 'A' || record.type === 'AAAA')
  return [
    verdict(
      'missing',
      'CNAME',
      hostname,
      plannedCname.value,
      [],
      fix.creates(plannedCname),
      say.missing(plannedCname, fix),
    ),
    ...others.map((record) =>
      verdict(
        'in-the-way',
        record.type,
        hostname,
        null,
        [record.value],
        fix.deletes(record),
        say.inTheWay(judged, record, fix),
      ),
    ),
  ]
}

const acmeVerdicts = (judged: Judged): Verdict[] =>
  judged.resolver.records
    .filter(isAcme)
    .map((record) =>
      verdict(
        'stale-acme-challenge',
        record.type,
        record.name,
        null,
        [record.value],
        false,
        say.staleAcme(judged.hostname, record),
      ),
    )

// Only the zone shows a CNAME beside other records: a resolver answers the CNAME alone.
function besideVerdicts(judged: Judged): Verdict[] {
  const zone = judged.zone
  if (!zone?.read) return []
  const cname = zone.present.find((record) => record.type === 'CNAME')
  const beside = zone.present.filter((record) => record.type !== 'CNAME')
  if (!cname || beside.length === 0) return []
  const fix = fixer(judged)
  const removable = [cname, ...beside].filter((record) => !holds(judged.expected, record))
  const fixable = removable.length > 0 && removable.every((record) => fix.deletes(record))
  return [
    verdict(
      'cname-beside-others',
      'CNAME',
      judged.hostname,
      null,
      [cname, ...beside].map((record) => `${record.type} ${record.value}`),
      fixable,
      say.cnameBeside(judged.hostname, cname, beside, fix, fixable),
    ),
  ]
}

/**
 * The verdicts of the hostname's records: one per planned record (ok, missing, wrong; resolver-failed when the
 * resolver gave nothing to judge by, never missing), then the records that stand in the way of them.
 */
export function judge(judged: Judged): Verdict[] {
  if (judged.resolver.error !== null) {
    const failed = judged.expected.map((record) =>
      verdict(
        'resolver-failed',
        record.type,
        judged.hostname,
        record.value,
        [],
        false,
        say.resolverFailed(judged.resolver),
      ),
    )
    return [...failed, ...besideVerdicts(judged)]
  }
  return [...resolverVerdicts(judged), ...besideVerdicts(judged), ...acmeVerdicts(judged)]
}
