import { api } from '../../api'
import { useArrayPages, useCursorPages } from '../../paged-list'

// A site's domains and custom hostnames a page at a time, under one query key each, so the cards listing them and
// the Routes table reading their DNS state share one fetch (a hostname list spends the site's rate window). A site
// may hold 100,000 of them: a page is a screenful of cards, and search finds the rest.

/** Cards (domains, custom hostnames) and rows (routes) per page of the site page's lists. */
export const SITE_CARDS_PER_PAGE = 25
export const SITE_ROWS_PER_PAGE = 50
const POLL_PENDING_MS = 2000

export function useDomainPages(siteId: string, search = '', enabled = true) {
  return useCursorPages(
    ['domains.list', siteId, search],
    (page) => api.domains.list({ siteId, ...page, ...(search ? { search } : {}) }),
    { enabled, pageSize: SITE_CARDS_PER_PAGE },
  )
}

export function useHostnamePages(siteId: string, search = '', enabled = true) {
  return useCursorPages(
    ['customHostnames.list', siteId, search],
    (page) => api.customHostnames.list({ siteId, ...page, ...(search ? { search } : {}) }),
    { enabled, pageSize: SITE_CARDS_PER_PAGE },
  )
}

export function useRoutePages(siteId: string, search = '', enabled = true) {
  return useArrayPages(
    ['routes.listForSite', siteId, search],
    (page) => api.routes.listForSite({ siteId, ...page, ...(search ? { search } : {}) }),
    {
      enabled,
      pageSize: SITE_ROWS_PER_PAGE,
      // Routes settle once the node confirms a version (a removed one then disappears): poll until all have.
      refetchInterval: (loaded) =>
        loaded?.some((route) => route.status === 'pending' || route.status === 'removed')
          ? POLL_PENDING_MS
          : false,
    },
  )
}
