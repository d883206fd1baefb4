/** What "Load more" needs of a paged query (both paged-list hooks give it). */
export interface MorePages {
  hasNextPage: boolean
  isFetchingNextPage: boolean
  fetchNextPage: () => Promise<unknown>
}

/** Fetches the next page of a list; absent once the last page is loaded. */
export function LoadMore({ pages, what }: { pages: MorePages; what: string }) {
  if (!pages.hasNextPage) return null
  return (
    <div className="actions load-more">
      <button
        type="button"
        className="secondary"
        onClick={() => void pages.fetchNextPage()}
        disabled={pages.isFetchingNextPage}
      >
        {pages.isFetchingNextPage ? `Loading more ${what}…` : `Load more ${what}`}
      </button>
    </div>
  )
}
