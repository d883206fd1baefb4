import type { DomainDetail, DomainRow } from './types'

type Entry = DomainRow['verification'][number]

/** The attach flow's steps in order, as `verification` names them, with their labels. */
export const ATTACH_STEPS = [
  ['driver-check', 'Driver check'],
  ['dns-write', 'DNS write'],
  ['dns-verify', 'DNS verify'],
  ['route-setup', 'Route setup'],
  ['certificate', 'Certificate'],
  ['smoke-test', 'Smoke test'],
] as const

export interface StepView {
  step: string
  label: string
  /** `not-started` for a step the flow has not reached. */
  state: Entry['state'] | 'not-started'
  detail: string
  at: string | null
}

const LATER_LABELS: Record<string, string> = { renew: 'Renew', detach: 'Detach', replan: 'Re-plan' }

/** Each attach step with its latest entry, then any renew, re-plan or detach entries, in the order they happened. */
export function stepsOf(verification: readonly Entry[]): StepView[] {
  const latest = new Map<string, Entry>()
  for (const entry of verification) latest.set(entry.step, entry)
  const flow: StepView[] = ATTACH_STEPS.map(([step, label]) => {
    const entry = latest.get(step)
    return entry
      ? { step, label, state: entry.state, detail: entry.detail, at: entry.at }
      : { step, label, state: 'not-started', detail: '', at: null }
  })
  const known = new Set<string>(ATTACH_STEPS.map(([step]) => step))
  const later = verification
    .filter((entry) => !known.has(entry.step))
    .map((entry) => ({
      step: entry.step,
      label: LATER_LABELS[entry.step] ?? entry.step,
      state: entry.state,
      detail: entry.detail,
      at: entry.at,
    }))
  return [...flow, ...later]
}

/** Whether a job is still working on the domain: its last entry runs or waits, or it is neither green nor failed. */
export function inProgress(domain: DomainRow | DomainDetail): boolean {
  const last = domain.verification.at(-1)
  if (last && (last.state === 'running' || last.state === 'waiting')) return true
  const green = domain.dnsState === 'verified' && domain.certState === 'issued'
  const failed = domain.dnsState === 'failed' || domain.certState === 'failed'
  return !green && !failed
}

/** One line for the live region: where the flow stands now. */
export function summaryOf(domain: DomainRow | DomainDetail): string {
  if (domain.dnsState === 'failed' || domain.certState === 'failed') return `${domain.hostname}: failed`
  const current = stepsOf(domain.verification).findLast((view) => view.state !== 'not-started')
  if (!inProgress(domain)) return `${domain.hostname}: serving with an issued certificate`
  return current ? `${domain.hostname}: ${current.label} ${current.state}` : `${domain.hostname}: queued`
}
