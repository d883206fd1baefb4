import { useMutation, useQueryClient } from '@tanstack/react-query'
import { type FormEvent, useState } from 'react'
import { Link } from 'wouter'
import { api } from '../../api'
import { pickerFields } from '../../components/channel-picker'
import { FieldError, FormProblem } from '../../components/form-problem'
import { configPatch, type FieldValues, fieldsFor } from './config-fields'
import { ConfigInputs } from './config-inputs'
import { HeartbeatUrl } from './heartbeat-url'
import { LocationInput } from './location-input'
import { locationInput } from './locations'
import { EMPTY_NOTIFY, NotifyInputs, type NotifyValues, notifyPatch } from './notify-inputs'
import { PROBE_TYPES, type ProbeType, TARGET_HINT, TARGET_KINDS, type TargetKind } from './probe-types'
import { TargetIdInput } from './target-id-input'

/** Creates a probe of any type; a heartbeat's URL is shown here, once. "Create another" starts from empty. */
export function CreateProbeForm() {
  const [round, setRound] = useState(0)
  return <ProbeForm key={round} onAnother={() => setRound((n) => n + 1)} />
}

function ProbeForm({ onAnother }: { onAnother: () => void }) {
  const [name, setName] = useState('')
  const [type, setType] = useState<ProbeType>('heartbeat')
  const [targetKind, setTargetKind] = useState<TargetKind>('external')
  const [targetId, setTargetId] = useState('')
  const [target, setTarget] = useState('')
  const [locations, setLocations] = useState<string[]>(['edge'])
  const [config, setConfig] = useState<FieldValues>({})
  const [notify, setNotify] = useState<NotifyValues>(EMPTY_NOTIFY)
  const queryClient = useQueryClient()
  const create = useMutation({
    mutationFn: () =>
      api.probes.create({
        name,
        type,
        targetKind,
        target,
        ...(targetKind === 'external' ? {} : { targetId }),
        ...(type === 'heartbeat' ? {} : { location: locationInput(locations) }),
        config: configPatch(type, config, 'create'),
        notifyConfig: notifyPatch(notify, 'create'),
        ...(notify.secret === '' ? {} : { webhookSecret: notify.secret }),
      }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['probes.list'] }),
  })
  const submit = (event: FormEvent) => {
    event.preventDefault()
    create.mutate()
  }
  const shown = ['name', 'type', 'targetKind', 'targetId', 'target', 'location', 'webhookSecret']
    .concat(fieldsFor(type).map((field) => `config.${field.key}`))
    .concat(['config.expectedStatus', 'notifyConfig.emails', 'notifyConfig.webhookUrl'])
    .concat([
      'notifyConfig.cooldownSeconds',
      'notifyConfig.maxPerHour',
      'notifyConfig.repeatWhileDownMinutes',
    ])
    .concat(pickerFields('notifyConfig.channels'))
  if (create.data)
    return (
      <section aria-labelledby="created-heading">
        <h2 id="created-heading">Probe created</h2>
        <p>
          <Link href={`/monitoring/probes/${create.data.id}`}>{create.data.name}</Link> is {create.data.state}
          {create.data.type === 'heartbeat' ? ' until its first ping.' : ' until its first result.'}
        </p>
        {create.data.heartbeatUrl && <HeartbeatUrl url={create.data.heartbeatUrl} />}
        <button type="button" className="secondary" onClick={onAnother}>
          Create another probe
        </button>
      </section>
    )
  return (
    <form onSubmit={submit} aria-labelledby="create-heading">
      <h2 id="create-heading">Create a probe</h2>
      <label>
        Name
        <input type="text" value={name} onChange={(e) => setName(e.target.value)} required />
        <FieldError error={create.error} field="name" />
      </label>
      <label>
        Type
        <select value={type} onChange={(e) => setType(e.target.value as ProbeType)}>
          {PROBE_TYPES.map((option) => (
            <option key={option}>{option}</option>
          ))}
        </select>
        <FieldError error={create.error} field="type" />
      </label>
      <label>
        Target kind
        <select value={targetKind} onChange={(e) => setTargetKind(e.target.value as TargetKind)}>
          {TARGET_KINDS.map((option) => (
            <option key={option}>{option}</option>
          ))}
        </select>
        <FieldError error={create.error} field="targetKind" />
      </label>
      <TargetIdInput kind={targetKind} value={targetId} onChange={setTargetId} error={create.error} />
      <label>
        Target
        <input
          type="text"
          value={target}
          onChange={(e) => setTarget(e.target.value)}
          required
          aria-describedby="target-hint"
        />
        <span className="hint" id="target-hint">
          {TARGET_HINT[type]}
        </span>
        <FieldError error={create.error} field="target" />
      </label>
      {type !== 'heartbeat' && (
        <LocationInput value={locations} onChange={setLocations} error={create.error} />
      )}
      <ConfigInputs type={type} values={config} onChange={setConfig} error={create.error} />
      <NotifyInputs values={notify} onChange={setNotify} error={create.error} hasSecret={false} />
      <button type="submit" disabled={create.isPending}>
        Create probe
      </button>
      <FormProblem error={create.error} fields={shown} />
    </form>
  )
}
