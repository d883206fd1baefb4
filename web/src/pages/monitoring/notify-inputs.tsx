import { ChannelPicker } from '../../components/channel-picker'
import { FieldError } from '../../components/form-problem'

/** The notification settings as the form holds them; `secret` is the probe's webhookSecret. */
export interface NotifyValues {
  emails: string
  webhookUrl: string
  /** Notification channel ids. */
  channels: string[]
  cooldownSeconds: string
  maxPerHour: string
  repeatWhileDownMinutes: string
  secret: string
}

export const EMPTY_NOTIFY: NotifyValues = {
  emails: '',
  webhookUrl: '',
  channels: [],
  cooldownSeconds: '',
  maxPerHour: '',
  repeatWhileDownMinutes: '',
  secret: '',
}

const NUMBERS = [
  ['cooldownSeconds', 'Cooldown (seconds)', 'Least time after the last notification sent (default 300)'],
  ['maxPerHour', 'At most per hour', 'Notifications in any 60 minutes, reminders included (default 10)'],
  [
    'repeatWhileDownMinutes',
    'Remind while down (minutes)',
    'While down, remind this often; 0 never (default 0)',
  ],
] as const

function numberOrRaw(raw: string): number | string {
  return Number.isFinite(Number(raw)) ? Number(raw) : raw
}

/** The `notifyConfig` to send: empty inputs are left out on create and set back to their default on edit. */
export function notifyPatch(values: NotifyValues, mode: 'create' | 'edit'): Record<string, unknown> {
  const patch: Record<string, unknown> = {}
  const emails = values.emails
    .split(/[\s,]+/)
    .map((email) => email.trim())
    .filter((email) => email !== '')
  if (emails.length > 0 || mode === 'edit') patch.emails = emails
  if (values.webhookUrl.trim() !== '') patch.webhookUrl = values.webhookUrl.trim()
  else if (mode === 'edit') patch.webhookUrl = null
  if (values.channels.length > 0 || mode === 'edit') patch.channels = values.channels
  for (const [key] of NUMBERS) {
    if (values[key] !== '') patch[key] = numberOrRaw(values[key])
    else if (mode === 'edit') patch[key] = null
  }
  return patch
}

/** Who hears about changes: emails, a signed webhook (with its secret), channels and the pacing limits. */
export function NotifyInputs({
  values,
  onChange,
  error,
  hasSecret,
}: {
  values: NotifyValues
  onChange: (values: NotifyValues) => void
  error: unknown
  hasSecret: boolean
}) {
  const set = (key: Exclude<keyof NotifyValues, 'channels'>, value: string) =>
    onChange({ ...values, [key]: value })
  return (
    <fieldset className="config">
      <legend>Notifications</legend>
      <label>
        Emails
        <input
          type="text"
          value={values.emails}
          onChange={(e) => set('emails', e.target.value)}
          aria-describedby="notify-emails-hint"
        />
        <span className="hint" id="notify-emails-hint">
          Up to 10 addresses, separated by commas or spaces
        </span>
        <FieldError error={error} field="notifyConfig.emails" />
      </label>
      <label>
        Webhook URL
        <input
          type="url"
          value={values.webhookUrl}
          onChange={(e) => set('webhookUrl', e.target.value)}
          aria-describedby="notify-webhook-hint"
        />
        <span className="hint" id="notify-webhook-hint">
          Receives a POST signed with the secret below on each notified change
        </span>
        <FieldError error={error} field="notifyConfig.webhookUrl" />
      </label>
      <label>
        Webhook secret
        <input
          type="password"
          autoComplete="new-password"
          value={values.secret}
          onChange={(e) => set('secret', e.target.value)}
          aria-describedby="notify-secret-hint"
        />
        <span className="hint" id="notify-secret-hint">
          16–256 characters, never shown again.{' '}
          {hasSecret ? 'A secret is stored: leave empty to keep it.' : 'None stored.'}
        </span>
        <FieldError error={error} field="webhookSecret" />
      </label>
      <ChannelPicker
        picked={values.channels}
        onChange={(channels) => onChange({ ...values, channels })}
        error={error}
        field="notifyConfig.channels"
      />
      {NUMBERS.map(([key, label, hint]) => (
        <label key={key}>
          {label}
          <input
            type="number"
            value={values[key]}
            onChange={(e) => set(key, e.target.value)}
            aria-describedby={`notify-${key}-hint`}
          />
          <span className="hint" id={`notify-${key}-hint`}>
            {hint}
          </span>
          <FieldError error={error} field={`notifyConfig.${key}`} />
        </label>
      ))}
    </fieldset>
  )
}
