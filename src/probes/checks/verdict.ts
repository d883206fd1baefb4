import type { CheckResult } from '../monitor/api'

/** What a check found, before runCheck stamps it with its id and time. */
export type Verdict = Pick<CheckResult, 'outcome' | 'latencyMs' | 'detail'>

/** A failed check that got no answer worth timing. */
export const down = (detail: string): Verdict => ({ outcome: 'down', latencyMs: null, detail })
