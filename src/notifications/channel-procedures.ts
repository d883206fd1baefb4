import { and, eq, isNull, sql } from 'drizzle-orm'
import { commitGuarded, failUnless, nextUpdatedAt } from '../db/batch-guard'
import type { Db } from '../db/client'
import { channelDeliveries, channels } from '../db/schema/channels'
import { probes } from '../db/schema/probes'
import { afterCursor, type ListOrder, orderTerms, pageOf, rowsOfPageAndOne } from '../lib/paging'
import { IdInputSchema, RemovedSchema } from '../lib/schemas'
import { procedure } from '../rpc/define'
import { conflict, invalid, notFound } from '../rpc/errors'
import { channelDeliveriesPage } from './channel-deliveries'
import {
  ChannelDeliveriesInputSchema,
  ChannelDeliveriesPageSchema,
  ChannelListInputSchema,
  ChannelPageSchema,
  ChannelSchema,
  ChannelTestResultSchema,
  CreateChannelInputSchema,
  UpdateChannelInputSchema,
} from './channel-schemas'
import {
  assertTakesApiBaseUrl,
  type ChannelRecord,
  getChannel,
  sendToChannel,
  storedConfig,
  toChannel,
} from './channel-store'
import { testChannelMessage } from './channels/probe-message'
import { readNotificationSettings } from './settings'

const NEWEST_FIRST: ListOrder = { keys: [sql`${channels.createdAt}`, sql`${channels.id}`], direction: 'desc' }

/** The live probes whose notifyConfig names the channel: a removal would silence them. */
function probesUsing(database: Db, channelId: string) {
  return database
    .select({ id: probes.id, name: probes.name })
    .from(probes)
    .where(
      and(
        isNull(probes.archivedAt),
        sql`exists (select 1 from json_each(${probes.notifyConfig}, '$.channels') where value = ${channelId})`,
      ),
    )
    .orderBy(probes.name)
}

const lostRace = (database: Db, id: string) => async () => {
  const [row] = await database.select({ id: channels.id }).from(channels).where(eq(channels.id, id))
  return row
    ? conflict(`notification channel ${id} changed meanwhile; read it again and retry`)
    : notFound(`notification channel ${id}`)
}

export const channelProcedures = {
  create: procedure({
    kind: 'mutation',
    permission: 'probes:manage',
    audit: 'notification-channel.create',
    summary:
      'Create a notification channel (email, signed webhook, Slack, Discord, Telegram, ntfy or PagerDuty); its secrets are stored encrypted and never returned',
    input: CreateChannelInputSchema,
    output: ChannelSchema,
    async handler(input, ctx) {
      const apiBaseUrl = input.apiBaseUrl ?? null
      assertTakesApiBaseUrl(input.kind, apiBaseUrl)
      const now = new Date()
      const row: ChannelRecord = {
        id: crypto.randomUUID(),
        name: input.name,
        kind: input.kind,
        ...(await storedConfig(ctx.env, input.kind, input.config, apiBaseUrl)),
        apiBaseUrl,
        createdAt: now,
        updatedAt: now,
      }
      await ctx.commit([ctx.db.insert(channels).values(row)], {
        targetId: row.id,
        detail: { name: row.name, kind: row.kind, target: row.hint },
      })
      return toChannel(row, ctx.principal)
    },
  }),
  update: procedure({
    kind: 'mutation',
    permission: 'probes:manage',
    audit: 'notification-channel.update',
    summary:
      "Change a channel's name, config or apiBaseUrl; a new config replaces the whole config, its secret fields included (the kind never changes)",
    input: UpdateChannelInputSchema,
    output: ChannelSchema,
    errors: ['not_found', 'conflict'],
    async handler(input, ctx) {
      const row = await getChannel(ctx.db, input.id)
      if (input.kind !== row.kind) throw invalid('kind', `is ${row.kind}: a channel's kind never changes`)
      const apiBaseUrl = input.apiBaseUrl === undefined ? row.apiBaseUrl : input.apiBaseUrl
      assertTakesApiBaseUrl(row.kind, apiBaseUrl)
      if (!input.config && apiBaseUrl !== row.apiBaseUrl)
        throw invalid('config', 'is required with a new apiBaseUrl: the secret is sent again with it')
      const next: ChannelRecord = {
        ...row,
        name: input.name ?? row.name,
        ...(input.config ? await storedConfig(ctx.env, row.kind, input.config, apiBaseUrl) : {}),
        apiBaseUrl,
        updatedAt: nextUpdatedAt(row.updatedAt, new Date()),
      }
      const { id, createdAt: _createdAt, ...changes } = next
      await commitGuarded(
        ctx.commit(
          [
            ctx.db
              .update(channels)
              .set(changes)
              .where(and(eq(channels.id, id), eq(channels.updatedAt, row.updatedAt))),
            failUnless(ctx.db, sql`changes() = 1`),
          ],
          {
            targetId: id,
            detail: {
              name: next.name,
              kind: next.kind,
              target: next.hint,
              configReplaced: input.config !== undefined,
            },
          },
        ),
        lostRace(ctx.db, id),
      )
      return toChannel(next, ctx.principal)
    },
  }),
  list: procedure({
    kind: 'query',
    permission: 'probes:view',
    summary: 'The notification channels, newest first; secrets are never returned (see target and hasSecret)',
    input: ChannelListInputSchema,
    output: ChannelPageSchema,
    async handler(input, ctx) {
      const rows = await ctx.db
        .select()
        .from(channels)
        .where(
          await afterCursor(ctx.db, { table: channels, id: channels.id, order: NEWEST_FIRST }, input.cursor),
        )
        .orderBy(...orderTerms(NEWEST_FIRST))
        .limit(rowsOfPageAndOne(input.limit))
      const page = pageOf(rows, input.limit, (row) => row.id)
      return { channels: page.items.map((row) => toChannel(row, ctx.principal)), nextCursor: page.nextCursor }
    },
  }),
  remove: procedure({
    kind: 'mutation',
    permission: 'probes:manage',
    audit: 'notification-channel.remove',
    summary:
      'Remove a channel and its delivery log; 409 naming the probes while any live probe still notifies it, or while the operational notifications do (detach it first)',
    input: IdInputSchema,
    output: RemovedSchema,
    errors: ['not_found', 'conflict'],
    async handler(input, ctx) {
      const row = await getChannel(ctx.db, input.id)
      const inUse = async () => {
        const users = await probesUsing(ctx.db, row.id)
        if (users.length > 0)
          return conflict(
            `notification channel ${row.id} is used by ${users.length} probe${users.length === 1 ? '' : 's'}: ${users
              .slice(0, 10)
              .map((probe) => `${probe.name} (${probe.id})`)
              .join(', ')}; remove it from their notifyConfig.channels first`,
          )
        if ((await readNotificationSettings(ctx.db)).channels.includes(row.id))
          return conflict(
            `notification channel ${row.id} is told of operational problems; remove it from settings.notifications first`,
          )
        return null
      }
      const refused = await inUse()
      if (refused) throw refused
      await commitGuarded(
        ctx.commit(
          [
            failUnless(
              ctx.db,
              sql`not exists (select 1 from probes, json_each(probes.notify_config, '$.channels') as used
                  where probes.archived_at is null and used.value = ${row.id})
                and not exists (select 1 from notification_settings, json_each(notification_settings.channels) as told
                  where told.value = ${row.id})`,
            ),
            ctx.db.delete(channels).where(eq(channels.id, row.id)),
          ],
          { targetId: row.id, detail: { name: row.name, kind: row.kind } },
        ),
        async () => (await inUse()) ?? notFound(`notification channel ${row.id}`),
      )
      return { removed: true as const }
    },
  }),
  test: procedure({
    kind: 'mutation',
    permission: 'probes:manage',
    audit: 'notification-channel.test',
    summary:
      "Send a test message to a channel now and say what became of it: the status, its outcome and the service's documented error code, never the service's own body; logged in its deliveries",
    input: IdInputSchema,
    output: ChannelTestResultSchema,
    errors: ['not_found'],
    async handler(input, ctx) {
      const row = await getChannel(ctx.db, input.id)
      const message = testChannelMessage({ id: row.id, name: row.name }, ctx.origin)
      const attempt = await sendToChannel(ctx.env, row, message)
      const answer = attempt.kind === 'delivered' ? attempt.answer : attempt.error
      const now = new Date()
      await ctx.commit(
        [
          ctx.db.insert(channelDeliveries).values({
            id: crypto.randomUUID(),
            channelId: row.id,
            probeId: null,
            event: 'test',
            title: message.title,
            status: attempt.kind === 'delivered' ? 'delivered' : 'failed',
            attempts: 1,
            answer,
            createdAt: now,
            lastAttemptAt: now,
          }),
        ],
        {
          targetId: row.id,
          detail: { name: row.name, delivered: attempt.kind === 'delivered', status: attempt.status },
        },
      )
      return {
        delivered: attempt.kind === 'delivered',
        status: attempt.status,
        outcome: attempt.outcome,
        serviceCode: attempt.serviceCode,
        answer,
      }
    },
  }),
  deliveries: procedure({
    kind: 'query',
    permission: 'probes:view',
    summary: "A channel's delivery log, newest first: each message, its status, attempts and the last answer",
    input: ChannelDeliveriesInputSchema,
    output: ChannelDeliveriesPageSchema,
    errors: ['not_found'],
    async handler(input, ctx) {
      await getChannel(ctx.db, input.id)
      return channelDeliveriesPage(ctx.db, input.id, input.limit, input.cursor)
    },
  }),
}
