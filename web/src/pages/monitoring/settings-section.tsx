import { useMutation, useQueryClient } from '@tanstack/react-query'
import { type FormEvent, useState } from 'react'
import { api } from '../../api'
import { ChannelNames, pickerFields } from '../../components/channel-picker'
import { FieldError, FormProblem } from '../../components/form-problem'
import { configPatch, type FieldValues, fieldsFor, valuesOf } from './config-fields'
import { ConfigInputs } from './config-inputs'
import { LocationInput } from './location-input'
import { locationInput, locationsOf, locationText, useNodeNames } from './locations'
import { NotifyInputs, type NotifyValues, notifyPatch } from './notify-inputs'
import type { Probe } from './probe-types'

function notifyValues(probe: Probe): NotifyValues {
  const notify = probe.notifyConfig
  return {
    emails: notify.emails.join(', '),
    webhookUrl: notify.webhookUrl ?? '',
    channels: notify.channels,
    cooldownSeconds: String(notify.cooldownSeconds),
    maxPerHour: String(notify.maxPerHour),
    repeatWhileDownMinutes: String(notify.repeatWhileDownMinutes),
    secret: '',
  }
}

function SettingsList({ probe }: { probe: Probe }) {
  const config = valuesOf(probe.config)
  const notify = probe.notifyConfig
  const names = useNodeNames()
  return (
    <dl className="settings">
      {probe.type !== 'heartbeat' && (
        <div>
          <dt>Checked from</dt>
          <dd data-testid="probe-location">{locationText(probe.location, names)}</dd>
        </div>
      )}
      {fieldsFor(probe.type).map((field) => (
        <div key={field.key}>
          <dt>{field.label}</dt>
          <dd>{String(config[field.key] ?? '—') || '—'}</dd>
        </div>
      ))}
      <div>
        <dt>Emails</dt>
        <dd>{notify.emails.join(', ') || 'none'}</dd>
      </div>
      <div>
        <dt>Webhook</dt>
        <dd>
          {notify.webhookUrl ?? 'none'} {probe.hasWebhookSecret ? '(secret stored)' : ''}
        </dd>
      </div>
      <div>
        <dt>Channels</dt>
        <dd>
          <ChannelNames ids={notify.channels} />
        </dd>
      </div>
      <div>
        <dt>Cooldown</dt>
        <dd>{notify.cooldownSeconds} s</dd>
      </div>
      <div>
        <dt>At most per hour</dt>
        <dd>{notify.maxPerHour}</dd>
      </div>
      <div>
        <dt>Remind while down</dt>
        <dd>
          {notify.repeatWhileDownMinutes === 0 ? 'never' : `every ${notify.repeatWhileDownMinutes} min`}
        </dd>
      </div>
    </dl>
  )
}

function EditForm({ probe, onDone }: { probe: Probe; onDone: () => void }) {
  const [name, setName] = useState(probe.name)
  const [config, setConfig] = useState<FieldValues>(() => valuesOf(probe.config))
  const [notify, setNotify] = useState<NotifyValues>(() => notifyValues(probe))
  const [clearSecret, setClearSecret] = useState(false)
  const [locations, setLocations] = useState<string[]>(() => locationsOf(probe.location))
  const queryClient = useQueryClient()
  const update = useMutation({
    mutationFn: () =>
      api.probes.update({
        id: probe.id,
        name,
        ...(probe.type === 'heartbeat' ? {} : { location: locationInput(locations) }),
        config: configPatch(probe.type, config, 'edit'),
        notifyConfig: notifyPatch(notify, 'edit'),
        ...(clearSecret
          ? { webhookSecret: null }
          : notify.secret === ''
            ? {}
            : { webhookSecret: notify.secret }),
      }),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ['probes.get', probe.id] })
      onDone()
    },
  })
  const submit = (event: FormEvent) => {
    event.preventDefault()
    update.mutate()
  }
  const shown = ['name', 'location', 'webhookSecret', 'config.expectedStatus']
    .concat(fieldsFor(probe.type).map((field) => `config.${field.key}`))
    .concat(['notifyConfig.emails', 'notifyConfig.webhookUrl', 'notifyConfig.cooldownSeconds'])
    .concat(['notifyConfig.maxPerHour', 'notifyConfig.repeatWhileDownMinutes'])
    .concat(pickerFields('notifyConfig.channels'))
  return (
    <form onSubmit={submit} aria-label="Edit the probe's settings">
      <label>
        Name
        <input type="text" value={name} onChange={(e) => setName(e.target.value)} required />
        <FieldError error={update.error} field="name" />
      </label>
      {probe.type !== 'heartbeat' && (
        <LocationInput value={locations} onChange={setLocations} error={update.error} />
      )}
      <ConfigInputs type={probe.type} values={config} onChange={setConfig} error={update.error} />
      <NotifyInputs
        values={notify}
        onChange={setNotify}
        error={update.error}
        hasSecret={probe.hasWebhookSecret}
      />
      {probe.hasWebhookSecret && (
        <label className="check">
          <input type="checkbox" checked={clearSecret} onChange={(e) => setClearSecret(e.target.checked)} />
          Remove the stored webhook secret (a webhook URL then has to go too)
        </label>
      )}
      <div className="actions">
        <button type="submit" disabled={update.isPending}>
          Save settings
        </button>
        <button type="button" className="secondary" onClick={onDone}>
          Cancel
        </button>
      </div>
      <FormProblem error={update.error} fields={shown} />
    </form>
  )
}

/** The probe's check and notification settings; editable with probes:manage while not archived. */
export function SettingsSection({ probe, canEdit }: { probe: Probe; canEdit: boolean }) {
  const [editing, setEditing] = useState(false)
  return (
    <section aria-labelledby="settings-heading">
      <h2 id="settings-heading">Settings</h2>
      {editing ? (
        <EditForm probe={probe} onDone={() => setEditing(false)} />
      ) : (
        <>
          <SettingsList probe={probe} />
          {canEdit && (
            <button type="button" onClick={() => setEditing(true)}>
              Edit settings
            </button>
          )}
        </>
      )}
    </section>
  )
}
