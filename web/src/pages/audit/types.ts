import type { api } from '../../api'

export type AuditInput = Parameters<typeof api.audit.list>[0]
export type AuditPage = Awaited<ReturnType<typeof api.audit.list>>
export type AuditEntry = AuditPage['entries'][number]

/** The filters audit.list accepts, as the page keeps them in its URL (`/audit?action=user.create`). */
export interface AuditFilters {
  action: string
  targetId: string
  limit: number
  /** Text the action, actor or target contains; set by the search box, kept when the filters change. */
  search?: string
}

export const PAGE_SIZES = [25, 50, 100, 200] as const
export const DEFAULT_PAGE_SIZE = 50

/** The filters named by the URL's search parameters. */
export function filtersOf(params: URLSearchParams): AuditFilters {
  const limit = Number(params.get('limit'))
  return {
    action: params.get('action') ?? '',
    targetId: params.get('targetId') ?? '',
    search: params.get('search') ?? '',
    limit: Number.isInteger(limit) && limit > 0 ? limit : DEFAULT_PAGE_SIZE,
  }
}

/** The search parameters for `filters`, leaving out what is empty or the default. */
export function searchOf(filters: AuditFilters): Record<string, string> {
  return {
    ...(filters.action ? { action: filters.action } : {}),
    ...(filters.targetId ? { targetId: filters.targetId } : {}),
    ...(filters.search ? { search: filters.search } : {}),
    ...(filters.limit !== DEFAULT_PAGE_SIZE ? { limit: String(filters.limit) } : {}),
  }
}

/** The audit.list input for one page of `filters`. */
export function inputOf(filters: AuditFilters, cursor: string | undefined): AuditInput {
  return {
    ...(filters.action ? { action: filters.action } : {}),
    ...(filters.targetId ? { targetId: filters.targetId } : {}),
    ...(filters.search ? { search: filters.search } : {}),
    limit: filters.limit,
    ...(cursor ? { cursor } : {}),
  }
}
