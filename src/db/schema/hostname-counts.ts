import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { customHostnames } from './custom-hostnames'
import { nodes, sites } from './fleet'

// The counts the hostname caps guard and the overview shows, kept by triggers (migrations/*_hostname-counts.sql) in the statement that
// inserts or deletes what they count, so every path (register, remove, removal job, attach, detach) keeps them
// exact and a register's guard reads one row instead of counting the node's hostnames. Sites never change
// instance and instances never change node (a trigger refuses it), so a count never has to follow a move.

/** How many custom hostnames a site holds, whatever their state. No row: none yet. */
export const siteHostnameCounts = sqliteTable('site_hostname_counts', {
  siteId: text('site_id')
    .primaryKey()
    .references(() => sites.id, { onDelete: 'cascade' }),
  customHostnames: integer('custom_hostnames').notNull(),
})

/** How many hostnames (custom hostnames and domains: their claims) the sites of a node hold. No row: none yet. */
export const nodeHostnameCounts = sqliteTable('node_hostname_counts', {
  nodeId: text('node_id')
    .primaryKey()
    .references(() => nodes.id, { onDelete: 'cascade' }),
  claims: integer('claims').notNull(),
})

/** How many custom hostnames of every site are in each state: the overview's tally reads these few rows. */
export const customHostnameStateCounts = sqliteTable('custom_hostname_state_counts', {
  state: text('state', { enum: customHostnames.state.enumValues }).primaryKey(),
  customHostnames: integer('custom_hostnames').notNull(),
})
