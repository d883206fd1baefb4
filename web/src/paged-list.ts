import { type QueryKey, useInfiniteQuery } from '@tanstack/react-query'

/** Rows per page the pages ask for unless a list asks for fewer; "Load more" fetches the next page. */
export const PAGE_SIZE = 100

/**
 * A list whose answer is an object carrying `nextCursor` (null on the last page): the pages loaded so far,
 * and the next one on demand.
 */
export function useCursorPages<P extends { nextCursor: string | null }>(
  queryKey: QueryKey,
  fetchPage: (page: { limit: number; cursor?: string }) => Promise<P>,
  options: { enabled?: boolean; pageSize?: number } = {},
) {
  const { pageSize = PAGE_SIZE, ...rest } = options
  return useInfiniteQuery({
    ...rest,
    queryKey,
    queryFn: ({ pageParam }) =>
      fetchPage(pageParam === undefined ? { limit: pageSize } : { limit: pageSize, cursor: pageParam }),
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
  options: {
    /** A fixed interval, or one decided from the rows loaded so far (false: no refetch). */
    refetchInterval?: number | ((rows: R[] | undefined) => number | false)
    staleTime?: number
    enabled?: boolean
    pageSize?: number
  } = {},
) {
  const { refetchInterval, pageSize = PAGE_SIZE, ...rest } = options
  const query = useInfiniteQuery({
    ...rest,
    ...(refetchInterval === undefined
      ? {}
      : {
          refetchInterval:
            typeof refetchInterval === 'function'
              ? (current: { state: { data?: { pages: R[][] } | undefined } }) =>
                  refetchInterval(current.state.data?.pages.flat())
              : refetchInterval,
        }),
    queryKey,
    queryFn: ({ pageParam }) =>
      fetchPage(pageParam === undefined ? { limit: pageSize } : { limit: pageSize, cursor: pageParam }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => (last.length < pageSize ? undefined : last.at(-1)?.id),
  })
  return { ...query, rows: query.data?.pages.flat() }
}
