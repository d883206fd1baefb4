import { z } from '@hono/zod-openapi'
import { and, asc, type Column, desc, eq, inArray, type SQL, sql } from 'drizzle-orm'
import type { SQLiteTable } from 'drizzle-orm/sqlite-core'
import type { Db } from '../db/client'
import { invalid } from '../rpc/errors'

export const MAX_PAGE_SIZE = 500
/** What a log (audit, deliveries, failed jobs) answers without `limit`: its newest rows, and a nextCursor. */
export const LOG_PAGE_SIZE = 100
// drizzle writes no LIMIT clause for a negative count, and SQLite reads `LIMIT -1` as no limit.
const EVERY_ROW = -1
// Room for the longest key a list pages by: ids, and zone names (253 characters).
const MAX_CURSOR_LENGTH = 256

const PageSizeSchema = z.number().int().min(1).max(MAX_PAGE_SIZE)

export const LimitSchema = PageSizeSchema.optional().describe(
  `Rows per page, 1 to ${MAX_PAGE_SIZE}; omit for every row`,
)

/** A log's `limit`: its newest LOG_PAGE_SIZE rows when omitted (the answer's nextCursor says whether more follow). */
export const LogLimitSchema = PageSizeSchema.default(LOG_PAGE_SIZE).describe(
  `Rows per page, 1 to ${MAX_PAGE_SIZE}; ${LOG_PAGE_SIZE} when omitted (nextCursor names the next page)`,
)

export const CursorSchema = z
  .string()
  .min(1)
  .max(MAX_CURSOR_LENGTH)
  .describe(
    'The id of the last row you hold (an object answer hands it back as nextCursor); omit for the first page',
  )

/** `limit` and `cursor`, spread into every list procedure's input: paging is opt-in, no `limit` is every row. */
export const pageInput = { limit: LimitSchema, cursor: CursorSchema.optional() }

/** `limit` and `cursor` of a log, which pages by default. */
export const logPageInput = { limit: LogLimitSchema, cursor: CursorSchema.optional() }

/** The LIMIT of a list answered as an array: a page of `limit` rows, or every row. */
export function rowsOfPage(limit: number | undefined): number {
  return limit ?? EVERY_ROW
}

/** The LIMIT of a list that answers nextCursor: one row past the page tells whether another follows. */
export function rowsOfPageAndOne(limit: number | undefined): number {
  return limit === undefined ? EVERY_ROW : limit + 1
}

export const NextCursorSchema = z
  .string()
  .nullable()
  .describe('Pass back as cursor for the next page; null when this page is the last')

/**
 * A list's order: sort keys, the last of them unique (a row id or rowid), so keyset paging never skips or
 * repeats a row when many rows share the earlier keys. Every key runs in the same direction.
 */
export interface ListOrder {
  keys: readonly SQL[]
  direction: 'asc' | 'desc'
}

/** Newest first by `createdAt`, insertion order breaking ties (a later insert first). */
export function newestFirst(table: SQLiteTable, createdAt: Column): ListOrder {
  return { keys: [sql`${createdAt}`, sql`${table}.rowid`], direction: 'desc' }
}

/** The ORDER BY terms of a list order. */
export function orderTerms(order: ListOrder): SQL[] {
  return order.keys.map((key) => (order.direction === 'desc' ? desc(key) : asc(key)))
}

/** Rows after a position in the order, as one row-value comparison SQLite answers from an index. */
function after(order: ListOrder, position: readonly unknown[]): SQL {
  const keys = sql.join([...order.keys], sql`, `)
  const values = sql.join(
    position.map((value) => sql`${value}`),
    sql`, `,
  )
  return order.direction === 'desc' ? sql`(${keys}) < (${values})` : sql`(${keys}) > (${values})`
}

/**
 * The keyset condition for the rows after the row whose id is `cursor`, or undefined on a first page.
 * `scope` is the list's own filter: a cursor naming a row outside the list (or one removed since) is 400.
 */
export async function afterCursor(
  db: Db,
  list: { table: SQLiteTable; id: Column; order: ListOrder; scope?: SQL | undefined },
  cursor: string | undefined,
): Promise<SQL | undefined> {
  if (cursor === undefined) return undefined
  const fields = Object.fromEntries(list.order.keys.map((key, i) => [`k${i}`, key]))
  const [row] = await db
    .select(fields)
    .from(list.table)
    .where(and(eq(list.id, cursor), list.scope))
    .limit(1)
  if (!row)
    throw invalid(
      'cursor',
      'names no row of this list (it may have been removed since); start from the first page',
    )
  return after(
    list.order,
    list.order.keys.map((_, i) => row[`k${i}`]),
  )
}

/** Slices the `limit + 1` rows a query fetched into the page and the cursor for the next one (all rows: none). */
export function pageOf<T>(rows: readonly T[], limit: number | undefined, idOf: (row: T) => string | number) {
  const items = rows.slice(0, limit ?? rows.length)
  const last = items[items.length - 1]
  return { items, nextCursor: rows.length > items.length && last !== undefined ? String(idOf(last)) : null }
}

/** `column LIKE %text%`, case-insensitive for ASCII, with the caller's `%`, `_` and `\` taken literally. */
export function contains(column: Column | SQL, text: string): SQL {
  const escaped = text.replace(/[\\%_]/g, (c) => `\\${c}`)
  return sql`${column} like ${`%${escaped}%`} escape '\\'`
}

export const SearchSchema = z.string().min(1).max(200)

// D1 binds at most 100 parameters per statement; a page's ids leave room for the statement's own.
const MAX_BOUND_IDS = 90

/**
 * The rows a page names by id, or, for a page of more ids than a statement may bind (a list read whole), every
 * row `scope` allows: the caller keeps the page's own by id.
 */
export function idsOrAll(id: Column, ids: readonly string[], scope?: SQL): SQL | undefined {
  return ids.length <= MAX_BOUND_IDS ? inArray(id, [...ids]) : scope
}
