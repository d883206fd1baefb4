import { isNotNull, isNull, type SQL, sql } from 'drizzle-orm'
import type { Db } from '../db/client'
import { changelogReleases } from '../db/schema/changelog'
import { idsOrAll } from '../lib/paging'
import { invalid } from '../rpc/errors'
import { compareFeedOrder } from './feed'
import { releasesWithTranslations, toReleaseRow } from './releases'
import type { ReleaseRow } from './schemas'

interface Position {
  id: string
  date: string | null
  version: string
  createdAt: number
  rowid: number
}

// Drafts newest first (later inserts first on a tie), then published releases in feed order.
function listOrder(a: Position, b: Position): number {
  if (a.date === null || b.date === null) {
    if (a.date !== null) return 1
    if (b.date !== null) return -1
    return b.createdAt - a.createdAt || b.rowid - a.rowid
  }
  return compareFeedOrder({ date: a.date, version: a.version }, { date: b.date, version: b.version })
}

/**
 * A page of releases after the release `cursor`. Feed order ranks versions by semver precedence, which SQL
 * cannot sort by, so the order is worked out over the releases' positions (id, date, version) alone and only
 * the page's releases are read in full.
 */
export async function pageReleases(
  db: Db,
  input: {
    state?: 'draft' | 'published' | undefined
    limit?: number | undefined
    cursor?: string | undefined
  },
): Promise<ReleaseRow[]> {
  const filter: SQL | undefined =
    input.state === 'draft'
      ? isNull(changelogReleases.date)
      : input.state === 'published'
        ? isNotNull(changelogReleases.date)
        : undefined
  const positions: Position[] = await db
    .select({
      id: changelogReleases.id,
      date: changelogReleases.date,
      version: changelogReleases.version,
      createdAt: sql<number>`${changelogReleases.createdAt}`,
      rowid: sql<number>`${changelogReleases}.rowid`,
    })
    .from(changelogReleases)
    .where(filter)
  positions.sort(listOrder)
  const start = input.cursor === undefined ? 0 : positions.findIndex((p) => p.id === input.cursor) + 1
  if (start === 0 && input.cursor !== undefined)
    throw invalid(
      'cursor',
      'names no release of this list (it may have been removed since); start from the first page',
    )
  const ids = positions
    .slice(start, input.limit === undefined ? undefined : start + input.limit)
    .map((p) => p.id)
  if (ids.length === 0) return []
  const { releases, translations } = await releasesWithTranslations(
    db,
    idsOrAll(changelogReleases.id, ids, filter),
  )
  const byId = new Map(releases.map((release) => [release.id, release]))
  return ids.flatMap((id) => {
    const release = byId.get(id)
    return release ? [toReleaseRow(release, translations.get(id) ?? [])] : []
  })
}
