/** One input of a channel kind's config form. */
export interface ChannelField {
  key: string
  label: string
  type: 'url' | 'text' | 'password' | 'lines'
  optional?: true
}

export const CHANNEL_KINDS = [
  'slack',
  'discord',
  'telegram',
  'ntfy',
  'pagerduty',
  'webhook',
  'email',
] as const
export type ChannelKindName = (typeof CHANNEL_KINDS)[number]

export const KIND_LABELS: Record<ChannelKindName, string> = {
  slack: 'Slack',
  discord: 'Discord',
  telegram: 'Telegram',
  ntfy: 'ntfy',
  pagerduty: 'PagerDuty',
  webhook: 'Signed webhook',
  email: 'Email',
}

/** Each kind's config inputs; secrets are password inputs, never filled back. */
export const KIND_FIELDS: Record<ChannelKindName, readonly ChannelField[]> = {
  slack: [{ key: 'webhookUrl', label: 'Incoming webhook URL', type: 'password' }],
  discord: [{ key: 'webhookUrl', label: 'Webhook URL', type: 'password' }],
  telegram: [
    { key: 'botToken', label: 'Bot token', type: 'password' },
    { key: 'chatId', label: 'Chat id', type: 'text' },
  ],
  ntfy: [
    { key: 'topicUrl', label: 'Topic URL', type: 'password' },
    { key: 'accessToken', label: 'Access token', type: 'password', optional: true },
  ],
  pagerduty: [{ key: 'routingKey', label: 'Integration (routing) key', type: 'password' }],
  webhook: [
    { key: 'url', label: 'URL', type: 'url' },
    { key: 'secret', label: 'Signing secret', type: 'password' },
  ],
  email: [{ key: 'recipients', label: 'Email addresses (one per line)', type: 'lines' }],
}

/** The config object of a kind from the form's text values; an empty optional field is left out. */
export function configOf(kind: ChannelKindName, values: Record<string, string>): Record<string, unknown> {
  const config: Record<string, unknown> = {}
  for (const field of KIND_FIELDS[kind]) {
    const value = (values[field.key] ?? '').trim()
    if (field.type === 'lines') config[field.key] = value.split(/[\s,]+/).filter((line) => line !== '')
    else if (value !== '' || !field.optional) config[field.key] = value
  }
  return config
}
