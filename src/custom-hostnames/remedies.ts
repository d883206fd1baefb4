import type { WriterFailure } from '../dns-write/name-writer'
import { displayTime } from '../lib/display-time'
import { describeRecords } from './outcome'

type Shown = { type: string; name: string; value: string }

// What a site token may read: the record, the zone, the step. The counterpart's words stay in failureDetail.
const SUMMARY: Record<WriterFailure['kind'], string> = {
  unreachable: "the zone's DNS servers did not answer",
  limited: "the zone's DNS service is over its rate limit",
  refused: "the zone's DNS service refused the change",
  gone: 'the panel can no longer write into that zone',
}

export interface Failure {
  remedy: string
  /** The counterpart's own words, for operators; null when the remedy says everything. */
  detail: string | null
}

/** Records at the name that the panel did not write and that stand in the way: the customer's to act on. */
export function recordsInTheWayFailure(
  name: string,
  found: readonly Shown[],
  planned: readonly Shown[],
): Failure {
  return {
    remedy: `${name} already has DNS records the panel did not create: ${describeRecords(found)}. The panel never changes or adds to records it did not write: remove them (or leave exactly ${describeRecords(planned)}), then register again.`,
    detail: null,
  }
}

/**
 * A write that failed: the last error of a pending row whose last try runs at `lastTry`, or (null) the final
 * error of a failed one.
 */
export function writeFailure(
  zoneName: string,
  failure: WriterFailure,
  planned: readonly Shown[],
  lastTry: Date | null,
): Failure {
  const what = `The panel could not write the DNS records in the zone ${zoneName} (step: DNS write): ${SUMMARY[failure.kind]}.`
  return {
    remedy: lastTry
      ? `${what} It tries again until ${displayTime(lastTry)}; if that try fails too, the hostname turns failed.`
      : `${what} The panel does not try again by itself: ask the panel's operator to fix it and register again, or create these records yourself: ${describeRecords(planned)}.`,
    detail: failure.detail,
  }
}

/**
 * A write that waits for the provider's rate limit until `until`: for the pace the panel keeps (`refusal` null) or
 * because the provider answered it is over its limit. Waiting is not a failed try.
 */
export function rateLimitWait(zoneName: string, until: Date, refusal: WriterFailure | null): Failure {
  const why = refusal
    ? 'the DNS service answered that the panel is over its rate limit'
    : "the account's calls are spread over the DNS service's rate limit"
  return {
    remedy: `The panel waits for the DNS provider's rate limit before it writes the DNS records in the zone ${zoneName} (step: DNS write): ${why}; next try at ${displayTime(until)}. Waiting does not count as a failed try.`,
    detail: refusal?.detail ?? null,
  }
}

/** A removal that needs a person: the records to delete by hand. */
export function removalFailure(zoneName: string, left: readonly Shown[], failure: WriterFailure): Failure {
  return {
    remedy: `Delete these records in the zone ${zoneName} by hand: ${describeRecords(left)} (the panel could not: ${SUMMARY[failure.kind]}). Then call remove again: the panel checks that they are gone and drops the hostname.`,
    detail: failure.detail,
  }
}

/** failureRemedy as a caller reads it: operators also get the counterpart's words; a site token never does. */
export function remedyFor(
  row: { failureRemedy: string | null; failureDetail: string | null },
  operator: boolean,
): string | null {
  if (!row.failureRemedy) return null
  return operator && row.failureDetail
    ? `${row.failureRemedy} Operator detail: ${row.failureDetail}`
    : row.failureRemedy
}
