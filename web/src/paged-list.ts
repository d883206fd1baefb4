import { type QueryKey, useInfiniteQuery } from '@tanstack/react-query'

/** Rows per page the pages ask for; "Load more" fetches the next page. */
export const PAGE_SIZE = 100

/**
 * A list whose answer is an object carrying `nextCursor` (null on the last page): the pages loaded so far,
 * and the next one on demand.
 */
export function useCursorPages<P extends { nextCursor: string | null }>(
  queryKey: QueryKey,
  fetchPage: (page: { limit: number; cursor?: string }) => Promise<P>,
  options: { enabled?: boolean } = {},
) {
  return useInfiniteQuery({
    ...options,
    queryKey,
    queryFn: ({ pageParam }) =>
      fetchPage(pageParam === undefined ? { limit: PAGE_SIZE } : { limit: PAGE_SIZE, cursor: pageParam }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  })
}

/**
 * A list whose answer is an array: the next page starts after the last row's id, and a page shorter than the
 * page size is the last.
 */
export function useArrayPages<R extends { id: string }>(
  queryKey: QueryKey,
  fetchPage: (page: { limit: number; cursor?: string }) => Promise<R[]>,
  options: { refetchInterval?: number; staleTime?: number } = {},
) {
  const query = useInfiniteQuery({
    ...options,
    queryKey,
    queryFn: ({ pageParam }) =>
      fetchPage(pageParam === undefined ? { limit: PAGE_SIZE } : { limit: PAGE_SIZE, cursor: pageParam }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => (last.length < PAGE_SIZE ? undefined : last.at(-1)?.id),
  })
  return { ...query, rows: query.data?.pages.flat() }
}
