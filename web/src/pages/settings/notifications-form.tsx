import { useMutation, useQueryClient } from '@tanstack/react-query'
import { type FormEvent, useState } from 'react'
import { api } from '../../api'
import { ChannelPicker, pickerFields } from '../../components/channel-picker'
import { FieldError, FormProblem } from '../../components/form-problem'
import { type NotificationSettings, SETTINGS_KEY } from './types'

const lines = (text: string) =>
  text
    .split(/[\s,]+/)
    .map((line) => line.trim())
    .filter((line) => line !== '')

/** Edits the recipients, the webhook (a new secret, or the stored one kept), the channels and the cooldown. */
export function NotificationsForm({ settings }: { settings: NotificationSettings }) {
  const [emails, setEmails] = useState(settings.emails.join('\n'))
  const [url, setUrl] = useState(settings.webhook?.url ?? '')
  const [secret, setSecret] = useState('')
  const [channels, setChannels] = useState<string[]>(settings.channels)
  const [cooldown, setCooldown] = useState(String(settings.cooldownMinutes))
  const [maxPerHour, setMaxPerHour] = useState(String(settings.maxPerHour))
  const queryClient = useQueryClient()
  const save = useMutation({
    mutationFn: () =>
      api.settings.notifications.set({
        emails: lines(emails),
        webhook: url.trim() === '' ? null : { url: url.trim(), ...(secret === '' ? {} : { secret }) },
        channels,
        cooldownMinutes: Number(cooldown),
        maxPerHour: Number(maxPerHour),
      }),
    onSuccess: async () => {
      setSecret('')
      await queryClient.invalidateQueries({ queryKey: SETTINGS_KEY })
    },
  })
  const submit = (event: FormEvent) => {
    event.preventDefault()
    save.mutate()
  }
  const keepsSecret = settings.webhook !== null && settings.webhook.url === url.trim()
  return (
    <form onSubmit={submit} aria-labelledby="recipients-heading">
      <h2 id="recipients-heading">Recipients</h2>
      <label>
        Email addresses
        <textarea
          value={emails}
          onChange={(e) => setEmails(e.target.value)}
          rows={3}
          aria-describedby="emails-hint"
        />
        <span className="hint" id="emails-hint">
          One per line. Sent through the panel's alert email binding.
        </span>
        <FieldError error={save.error} field="emails" />
      </label>
      <label>
        Webhook URL
        <input type="url" value={url} onChange={(e) => setUrl(e.target.value)} aria-describedby="url-hint" />
        <span className="hint" id="url-hint">
          Leave empty for no webhook.
        </span>
        <FieldError error={save.error} field="webhook.url" />
      </label>
      <label>
        Webhook secret
        <input
          type="password"
          autoComplete="new-password"
          value={secret}
          onChange={(e) => setSecret(e.target.value)}
          minLength={16}
          aria-describedby="secret-hint"
        />
        <span className="hint" id="secret-hint">
          {keepsSecret
            ? 'A secret is stored; leave empty to keep it.'
            : 'At least 16 characters; every delivery is signed with it. Never shown again.'}
        </span>
        <FieldError error={save.error} field="webhook.secret" />
      </label>
      <ChannelPicker picked={channels} onChange={setChannels} error={save.error} field="channels" />
      <label>
        Cooldown (minutes)
        <input
          type="number"
          min={0}
          max={1440}
          value={cooldown}
          onChange={(e) => setCooldown(e.target.value)}
          aria-describedby="cooldown-hint"
        />
        <span className="hint" id="cooldown-hint">
          The least time between two notifications of the same problem; the all-clear is always sent.
        </span>
        <FieldError error={save.error} field="cooldownMinutes" />
      </label>
      <label>
        At most per hour
        <input
          type="number"
          min={1}
          max={120}
          value={maxPerHour}
          onChange={(e) => setMaxPerHour(e.target.value)}
        />
        <FieldError error={save.error} field="maxPerHour" />
      </label>
      <button type="submit" disabled={save.isPending}>
        Save
      </button>
      {save.isSuccess && <p role="status">Saved.</p>}
      <FormProblem
        error={save.error}
        fields={[
          'emails',
          'webhook.url',
          'webhook.secret',
          'cooldownMinutes',
          'maxPerHour',
          ...pickerFields('channels'),
        ]}
      />
    </form>
  )
}
