import { z } from '@hono/zod-openapi'
import type { Principal } from '../auth/principal'
import { notificationSettings, SETTING_ID } from '../db/schema/notifications'
import { maskUrl, urlFor } from '../lib/mask-url'
import { assertOutboundUrl } from '../lib/outbound-url'
import { sealSecret } from '../lib/secrets'
import { procedure } from '../rpc/define'
import { invalid } from '../rpc/errors'
import { assertChannelsExist } from './channel-store'
import { deliveriesPage } from './deliveries'
import {
  DeliveriesInputSchema,
  DeliveriesPageSchema,
  type NotificationSettings,
  NotificationSettingsInputSchema,
  NotificationSettingsSchema,
} from './schemas'
import { type NotificationSettingsRecord, readNotificationSettings } from './settings'

/** The setting as `principal` may read it: the webhook URL in full only for settings:edit. */
function toSettings(row: NotificationSettingsRecord, principal: Principal): NotificationSettings {
  return {
    emails: row.emails,
    channels: row.channels,
    webhook: row.webhookUrl
      ? { url: urlFor(principal, 'settings:edit', row.webhookUrl), hasSecret: true }
      : null,
    cooldownMinutes: row.cooldownMinutes,
    maxPerHour: row.maxPerHour,
    updatedAt: row.updatedAt.getTime() > 0 ? row.updatedAt.toISOString() : null,
  }
}

export const notificationsProcedures = {
  get: procedure({
    kind: 'query',
    permission: 'settings:view',
    summary:
      'The operational notification setting: email recipients and the signed webhook (its secret is never returned)',
    input: z.strictObject({}),
    output: NotificationSettingsSchema,
    async handler(_input, ctx) {
      return toSettings(await readNotificationSettings(ctx.db), ctx.principal)
    },
  }),
  set: procedure({
    kind: 'mutation',
    permission: 'settings:edit',
    audit: 'settings.notifications-set',
    summary:
      'Replace the operational notification setting; a webhook needs a secret (kept when the URL is unchanged), stored encrypted',
    input: NotificationSettingsInputSchema,
    output: NotificationSettingsSchema,
    async handler(input, ctx) {
      const stored = await readNotificationSettings(ctx.db)
      const webhook = input.webhook
      if (webhook) {
        assertOutboundUrl(ctx.env, 'webhook.url', webhook.url)
        const keeps = webhook.url === stored.webhookUrl && stored.webhookSecretSealed !== null
        if (!webhook.secret && !keeps)
          throw invalid('webhook.secret', 'is required with a webhook URL: every delivery is signed with it')
      }
      const channelIds = input.channels ?? stored.channels
      await assertChannelsExist(ctx.db, channelIds, 'channels')
      const secretSealed = webhook?.secret
        ? await sealSecret(ctx.env, webhook.secret)
        : webhook
          ? stored.webhookSecretSealed
          : null
      const row: NotificationSettingsRecord = {
        id: SETTING_ID,
        emails: [...new Set(input.emails.map((email) => email.toLowerCase()))],
        webhookUrl: webhook?.url ?? null,
        webhookSecretSealed: secretSealed,
        channels: channelIds,
        cooldownMinutes: input.cooldownMinutes ?? stored.cooldownMinutes,
        maxPerHour: input.maxPerHour ?? stored.maxPerHour,
        updatedAt: new Date(Math.max(Date.now(), stored.updatedAt.getTime() + 1)),
      }
      const { id: _id, ...changes } = row
      await ctx.commit(
        [
          ctx.db
            .insert(notificationSettings)
            .values(row)
            .onConflictDoUpdate({ target: notificationSettings.id, set: changes }),
        ],
        {
          targetId: SETTING_ID,
          detail: {
            emails: row.emails.length,
            channels: row.channels,
            webhookUrl: row.webhookUrl ? maskUrl(row.webhookUrl) : null,
            secretChanged: webhook?.secret !== undefined,
            cooldownMinutes: row.cooldownMinutes,
            maxPerHour: row.maxPerHour,
          },
        },
      )
      return toSettings(row, ctx.principal)
    },
  }),
  deliveries: procedure({
    kind: 'query',
    permission: 'settings:view',
    summary:
      'The operational notification delivery log, newest first: channel, masked recipient, status, answer, attempts',
    input: DeliveriesInputSchema,
    output: DeliveriesPageSchema,
    async handler(input, ctx) {
      return deliveriesPage(ctx.db, input.limit, input.cursor)
    },
  }),
}
