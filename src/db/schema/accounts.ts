import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import type { AccountProvider } from '../../dns-accounts/providers'

export interface AccountTestState {
  ok: boolean
  detail: string
  retryAfterSeconds: number | null
  testedAt: string
}

/** Provider credentials of every kind (dns, git, ssl-issuer); the token is stored sealed. */
export const accounts = sqliteTable(
  'accounts',
  {
    id: text('id').primaryKey(),
    kind: text('kind', { enum: ['dns', 'git', 'ssl-issuer'] }).notNull(),
    name: text('name').notNull(),
    provider: text('provider').$type<AccountProvider>().notNull(),
    tokenSealed: text('token_sealed').notNull(),
    zoneId: text('zone_id'),
    apiBaseUrl: text('api_base_url'),
    lastTestState: text('last_test_state', { mode: 'json' }).$type<AccountTestState>().notNull(),
    zonesRefreshedAt: integer('zones_refreshed_at', { mode: 'timestamp_ms' }),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [
    uniqueIndex('accounts_kind_name_idx').on(t.kind, t.name),
    index('accounts_created_idx').on(t.createdAt),
  ],
)

/** The default account of a kind at one level of the node → instance → domain cascade. */
export const accountDefaults = sqliteTable(
  'account_defaults',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    scope: text('scope', { enum: ['node', 'instance', 'domain'] }).notNull(),
    // Not a foreign key: it names a node, an instance or a domain depending on scope.
    scopeId: text('scope_id').notNull(),
    kind: text('kind', { enum: ['dns', 'git', 'ssl-issuer'] }).notNull(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id),
    updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [
    uniqueIndex('account_defaults_scope_kind_idx').on(t.scope, t.scopeId, t.kind),
    index('account_defaults_account_idx').on(t.accountId),
  ],
)

/** The zones each dns account held at its last successful refresh; answers "who holds zone X" by index. */
export const accountZones = sqliteTable(
  'account_zones',
  {
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    zoneName: text('zone_name').notNull(),
    zoneId: text('zone_id').notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.zoneName] }), index('account_zones_name_idx').on(t.zoneName)],
)
