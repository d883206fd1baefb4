import { api } from '../../api'
import { useCursorPages } from '../../paged-list'

// A site's domains and custom hostnames a page at a time, under one query key each, so the cards listing them and
// the Routes table reading their DNS state share one fetch (a hostname list spends the site's rate window).

export function useDomainPages(siteId: string, search = '', enabled = true) {
  return useCursorPages(
    ['domains.list', siteId, search],
    (page) => api.domains.list({ siteId, ...page, ...(search ? { search } : {}) }),
    { enabled },
  )
}

export function useHostnamePages(siteId: string, search = '', enabled = true) {
  return useCursorPages(
    ['customHostnames.list', siteId, search],
    (page) => api.customHostnames.list({ siteId, ...page, ...(search ? { search } : {}) }),
    { enabled },
  )
}
