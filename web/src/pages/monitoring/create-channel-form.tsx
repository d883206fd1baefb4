import { useMutation, useQueryClient } from '@tanstack/react-query'
import { type FormEvent, useState } from 'react'
import { api } from '../../api'
import { FieldError, FormProblem } from '../../components/form-problem'
import { CHANNEL_KINDS, type ChannelKindName, configOf, KIND_FIELDS, KIND_LABELS } from './channel-fields'

export const CHANNELS_KEY = ['notifications.channels'] as const

/** Adds a channel: its kind, a name, the kind's config and an optional apiBaseUrl. */
export function CreateChannelForm() {
  const [kind, setKind] = useState<ChannelKindName>('slack')
  const [name, setName] = useState('')
  const [values, setValues] = useState<Record<string, string>>({})
  const [apiBaseUrl, setApiBaseUrl] = useState('')
  const queryClient = useQueryClient()
  const create = useMutation({
    mutationFn: () =>
      api.notifications.channels.create({
        kind,
        name,
        config: configOf(kind, values),
        ...(apiBaseUrl.trim() === '' ? {} : { apiBaseUrl: apiBaseUrl.trim() }),
      } as Parameters<typeof api.notifications.channels.create>[0]),
    onSuccess: async () => {
      setName('')
      setValues({})
      setApiBaseUrl('')
      await queryClient.invalidateQueries({ queryKey: CHANNELS_KEY })
    },
  })
  const submit = (event: FormEvent) => {
    event.preventDefault()
    create.mutate()
  }
  const fields = KIND_FIELDS[kind]
  return (
    <form onSubmit={submit} aria-labelledby="new-channel-heading">
      <h2 id="new-channel-heading">New channel</h2>
      <label>
        Kind
        <select value={kind} onChange={(e) => setKind(e.target.value as ChannelKindName)}>
          {CHANNEL_KINDS.map((k) => (
            <option key={k} value={k}>
              {KIND_LABELS[k]}
            </option>
          ))}
        </select>
      </label>
      <label>
        Name
        <input value={name} onChange={(e) => setName(e.target.value)} required />
        <FieldError error={create.error} field="name" />
      </label>
      {fields.map((field) => {
        const title = `${field.label}${field.optional ? ' (optional)' : ''}`
        const value = values[field.key] ?? ''
        const set = (text: string) => setValues({ ...values, [field.key]: text })
        return field.type === 'lines' ? (
          <label key={`${kind}.${field.key}`}>
            {title}
            <textarea rows={3} value={value} onChange={(e) => set(e.target.value)} />
            <FieldError error={create.error} field={`config.${field.key}`} />
          </label>
        ) : (
          <label key={`${kind}.${field.key}`}>
            {title}
            <input type={field.type} autoComplete="off" value={value} onChange={(e) => set(e.target.value)} />
            <FieldError error={create.error} field={`config.${field.key}`} />
          </label>
        )
      })}
      {kind !== 'email' && (
        <label>
          API base URL (optional)
          <input type="url" value={apiBaseUrl} onChange={(e) => setApiBaseUrl(e.target.value)} />
          <span className="hint">A self-hosted server or a proxy in place of the service's own origin.</span>
          <FieldError error={create.error} field="apiBaseUrl" />
        </label>
      )}
      <FormProblem
        error={create.error}
        fields={['name', 'apiBaseUrl', ...fields.map((f) => `config.${f.key}`)]}
      />
      <button type="submit" disabled={create.isPending}>
        Add channel
      </button>
    </form>
  )
}
