import { z } from '@hono/zod-openapi'
import { CHANNEL_DELIVERY_STATUSES, CHANNEL_KINDS, type ChannelKind } from '../db/schema/channels'
import { logPageInput, NextCursorSchema, pageInput } from '../lib/paging'
import { HttpUrlSchema, IdSchema, NameSchema } from '../lib/schemas'
import { CHANNEL_KIND_DEFS } from './channels/kinds'
import { DELIVERY_OUTCOMES } from './channels/outcome'

const ApiBaseUrlSchema = HttpUrlSchema.describe(
  "Replaces the service's origin (a self-hosted server, a proxy); held to the outbound rule",
)

/** A kind's whole config: its shown settings and its secret fields, in one object. */
export function configSchema<K extends ChannelKind>(kind: K) {
  const def: (typeof CHANNEL_KIND_DEFS)[K] = CHANNEL_KIND_DEFS[kind]
  const shape: (typeof def)['settings']['shape'] & (typeof def)['secret']['shape'] = {
    ...def.settings.shape,
    ...def.secret.shape,
  }
  return z.strictObject(shape)
}

const title = (kind: ChannelKind) => `${kind[0]?.toUpperCase()}${kind.slice(1)}`

function createOption<K extends ChannelKind>(kind: K) {
  return z
    .strictObject({
      kind: z.literal(kind, { error: `expected one of ${CHANNEL_KINDS.join(', ')}` }),
      name: NameSchema,
      config: configSchema(kind),
      /** Not for email, which has no HTTP API. */
      apiBaseUrl: ApiBaseUrlSchema.optional(),
    })
    .openapi(`Create${title(kind)}ChannelInput`)
}

/**
 * An update names the channel's kind (which never changes); `config`, when given, replaces the whole config,
 * secret fields included (a secret is never read back, so it is sent again with any change of config or
 * apiBaseUrl). `apiBaseUrl: null` drops the override.
 */
function updateOption<K extends ChannelKind>(kind: K) {
  return z
    .strictObject({
      id: IdSchema,
      kind: z.literal(kind, { error: `expected one of ${CHANNEL_KINDS.join(', ')}` }),
      name: NameSchema.optional(),
      config: configSchema(kind).optional(),
      apiBaseUrl: ApiBaseUrlSchema.nullable().optional(),
    })
    .openapi(`Update${title(kind)}ChannelInput`)
}

// A body with no known kind is checked against every kind, so its other mistakes are named beside the kind.
export const CreateChannelInputSchema = z
  .discriminatedUnion(
    'kind',
    [
      createOption('email'),
      createOption('webhook'),
      createOption('slack'),
      createOption('discord'),
      createOption('telegram'),
      createOption('ntfy'),
      createOption('pagerduty'),
    ],
    { unionFallback: true },
  )
  .openapi('CreateChannelInput')

export const UpdateChannelInputSchema = z
  .discriminatedUnion(
    'kind',
    [
      updateOption('email'),
      updateOption('webhook'),
      updateOption('slack'),
      updateOption('discord'),
      updateOption('telegram'),
      updateOption('ntfy'),
      updateOption('pagerduty'),
    ],
    { unionFallback: true },
  )
  .openapi('UpdateChannelInput')

export const ChannelSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    kind: z.enum(CHANNEL_KINDS),
    /** The config's shown part (email recipients, a Telegram chat id); empty for the other kinds. */
    settings: z.record(z.string(), z.unknown()),
    /** What stands in for the secret part: a masked URL (`https://hooks.slack.com/***`) or a hint. */
    target: z.string(),
    /** Whether the channel holds a sealed secret, which is never returned. */
    hasSecret: z.boolean(),
    apiBaseUrl: z.string().nullable(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .openapi('NotificationChannel')
export type Channel = z.infer<typeof ChannelSchema>

export const ChannelListInputSchema = z.strictObject({ ...pageInput })
export const ChannelPageSchema = z.object({ channels: z.array(ChannelSchema), nextCursor: NextCursorSchema })

export const ChannelTestResultSchema = z
  .object({
    delivered: z.boolean(),
    /** The status the service answered; null when nothing answered or for email. */
    status: z.number().int().nullable(),
    outcome: z
      .enum(DELIVERY_OUTCOMES)
      .describe(
        'What became of it: delivered; refused (any other 3xx/4xx); not_found (404, 410); rate_limited (429); server_error (5xx); unreachable (no answer); not_sent (the panel could not send it)',
      ),
    serviceCode: z
      .string()
      .nullable()
      .describe(
        "The service's own error code, when its answer has the service's documented error shape (Slack's word, Discord's, ntfy's code, Telegram's description, PagerDuty's status); the body itself is never returned",
      ),
    /** The same in words: `answered 403: refused by the service (invalid_token)`, `unreachable: timed out after 10 s`. */
    answer: z.string(),
  })
  .openapi('NotificationChannelTestResult')

export const ChannelDeliverySchema = z
  .object({
    id: z.string(),
    probeId: z.string().nullable(),
    /** The announced change (`up->down`), `still_down`, or `test`. */
    event: z.string(),
    title: z.string(),
    status: z.enum(CHANNEL_DELIVERY_STATUSES),
    attempts: z.number().int(),
    answer: z
      .string()
      .nullable()
      .describe(
        "What the last attempt came to, in the panel's words: the status and its outcome with the service's documented error code (`answered 404: not found (10015)`), the network's reason (`unreachable: …`), or why nothing was sent; never the service's own body",
      ),
    createdAt: z.iso.datetime(),
    lastAttemptAt: z.iso.datetime().nullable(),
  })
  .openapi('NotificationChannelDelivery')

export const ChannelDeliveriesInputSchema = z.strictObject({ id: IdSchema, ...logPageInput })
export const ChannelDeliveriesPageSchema = z.object({
  deliveries: z.array(ChannelDeliverySchema),
  nextCursor: NextCursorSchema,
})
