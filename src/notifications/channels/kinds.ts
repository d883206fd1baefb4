import type { ChannelKind } from '../../db/schema/channels'
import { discordKind } from './discord'
import { emailKind } from './email'
import { ntfyKind } from './ntfy'
import { pagerdutyKind } from './pagerduty'
import { slackKind } from './slack'
import { telegramKind } from './telegram'
import { webhookKind } from './webhook'

/** Every channel kind by name. */
export const CHANNEL_KIND_DEFS = {
  email: emailKind,
  webhook: webhookKind,
  slack: slackKind,
  discord: discordKind,
  telegram: telegramKind,
  ntfy: ntfyKind,
  pagerduty: pagerdutyKind,
} as const satisfies Record<ChannelKind, unknown>
