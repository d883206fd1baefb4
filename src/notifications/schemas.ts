import { z } from '@hono/zod-openapi'
import { OPERATIONAL_DELIVERY_STATUSES, OPERATIONAL_KINDS } from '../db/schema/notifications'
import { logPageInput, NextCursorSchema } from '../lib/paging'
import { HttpUrlSchema, IdSchema } from '../lib/schemas'

export const MAX_RECIPIENTS = 20

const WebhookSecretSchema = z.string().min(16, 'must be at least 16 characters').max(512)

export const NotificationSettingsInputSchema = z.strictObject({
  emails: z
    .array(z.email('must be an email address').max(254))
    .max(MAX_RECIPIENTS, `must hold at most ${MAX_RECIPIENTS} addresses`),
  webhook: z
    .strictObject({
      url: HttpUrlSchema,
      /** Required unless the stored webhook has this URL: then the stored secret is kept. */
      secret: WebhookSecretSchema.optional(),
    })
    .nullable(),
  /** Notification channels told too; omitted keeps the stored ones. */
  channels: z
    .array(IdSchema)
    .max(10)
    .refine((ids) => new Set(ids).size === ids.length, 'must not name a channel twice')
    .optional(),
  cooldownMinutes: z.number().int().min(0).max(1440).optional(),
  maxPerHour: z.number().int().min(1).max(120).optional(),
})

export const NotificationSettingsSchema = z
  .object({
    emails: z.array(z.string()),
    /** The webhook; its secret is never returned, only `hasSecret`. */
    webhook: z.object({ url: z.string(), hasSecret: z.literal(true) }).nullable(),
    /** Notification channel ids told too. */
    channels: z.array(z.string()),
    cooldownMinutes: z.number().int(),
    maxPerHour: z.number().int(),
    /** When the setting was last saved; null before the first save. */
    updatedAt: z.iso.datetime().nullable(),
  })
  .openapi('NotificationSettings')
export type NotificationSettings = z.infer<typeof NotificationSettingsSchema>

export const NotificationDeliverySchema = z
  .object({
    id: z.string(),
    kind: z.enum(OPERATIONAL_KINDS),
    /** `raised` announces a problem, `resolved` is its all-clear. */
    event: z.enum(['raised', 'resolved']),
    key: z.string(),
    subject: z.string(),
    channel: z.enum(['email', 'webhook', 'channel']),
    /** The address or URL, masked; a channel's id. */
    target: z.string(),
    status: z.enum(OPERATIONAL_DELIVERY_STATUSES),
    attempts: z.number().int(),
    /** The last attempt's answer or error. */
    answer: z.string().nullable(),
    createdAt: z.iso.datetime(),
    lastAttemptAt: z.iso.datetime().nullable(),
  })
  .openapi('NotificationDelivery')

export const DeliveriesInputSchema = z.strictObject({ ...logPageInput })

export const DeliveriesPageSchema = z.object({
  deliveries: z.array(NotificationDeliverySchema),
  nextCursor: NextCursorSchema,
})
