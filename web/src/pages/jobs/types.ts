import type { api } from '../../api'

export type JobsInput = Parameters<typeof api.jobs.list>[0]
export type Job = Awaited<ReturnType<typeof api.jobs.list>>['jobs'][number]
export type JobState = Job['state']
export type JobKind = Job['kind']

/** Every job kind, in words; a kind the panel adds fails to compile until it is named here. */
export const KIND_LABELS: Record<JobKind, string> = {
  'changelog.webhook-delivery': 'Changelog webhook delivery',
  'dns.zone-sync': 'Zone sync to a nameserver box',
  'custom-hostname.write': 'Custom hostname DNS write',
  'custom-hostname.remove': 'Custom hostname removal',
  'custom-hostname.replan': 'Custom hostname re-plan',
  'route.reconcile': 'Route push to a node',
  'domain.step': 'Domain step',
  'domain.replan': 'Domain re-plan',
  'probe.scan': 'Probe scan shard',
  'probe.scan.tick': 'Probe scan tick (every 10 s within the minute)',
  'probe.check': 'Probe check',
  'probe.checks': 'Probe checks (a pack of 25)',
  'probe.notify': 'Probe notification',
  'node.health-check': 'Node health check',
  'notification.deliver': 'Operational notification delivery',
  'status-page.announce': 'Status page announcement fan-out',
  'status-page.deliver': 'Status page announcement delivery',
  'status-page.subscription-mail': 'Status page subscription mail',
}

export const STATE_LABELS: Record<JobState, string> = {
  dead: 'dead (out of attempts)',
  retrying: 'retrying',
  retried: 'sent again',
  succeeded: 'succeeded',
}

/** The filters jobs.list takes, as the page keeps them in its URL (`/jobs?state=dead`). */
export interface JobFilters {
  state: JobState | ''
  kind: JobKind | ''
}

const isState = (value: string): value is JobState => value in STATE_LABELS
const isKind = (value: string): value is JobKind => value in KIND_LABELS

export function filtersOf(params: URLSearchParams): JobFilters {
  const state = params.get('state') ?? ''
  const kind = params.get('kind') ?? ''
  return { state: isState(state) ? state : '', kind: isKind(kind) ? kind : '' }
}

export function searchOf(filters: JobFilters): Record<string, string> {
  return {
    ...(filters.state ? { state: filters.state } : {}),
    ...(filters.kind ? { kind: filters.kind } : {}),
  }
}

export const PAGE_SIZE = 50

/** The jobs.list input for one page of `filters`. */
export function inputOf(filters: JobFilters, cursor: string | undefined): JobsInput {
  return {
    ...(filters.state ? { state: filters.state } : {}),
    ...(filters.kind ? { kind: filters.kind } : {}),
    limit: PAGE_SIZE,
    ...(cursor ? { cursor } : {}),
  }
}
