import { useMutation, useQueryClient } from '@tanstack/react-query'
import { type FormEvent, useState } from 'react'
import { api } from '../../api'
import { FieldError, FormProblem } from '../../components/form-problem'
import type { StatusPage } from './status-page-item'

export type Incident = Awaited<ReturnType<typeof api.statusPages.incidents.create>>

export const IMPACTS = ['none', 'minor', 'major', 'critical'] as const
export const STATES = ['investigating', 'identified', 'monitoring', 'resolved'] as const

export const incidentsKey = (statusPageId: string) => ['statusPages.incidents.list', statusPageId]

/** The page's listed probes, once each, under the name the page shows. */
function listedProbes(page: StatusPage) {
  const seen = new Map<string, string>()
  for (const group of page.groups)
    for (const probe of group.probes) if (!seen.has(probe.probeId)) seen.set(probe.probeId, probe.displayName)
  return [...seen].map(([probeId, displayName]) => ({ probeId, displayName }))
}

/** A new incident: title, impact, the listed probes it concerns and its first message (investigating). */
export function OpenIncidentForm({ page }: { page: StatusPage }) {
  const queryClient = useQueryClient()
  const [title, setTitle] = useState('')
  const [impact, setImpact] = useState<(typeof IMPACTS)[number]>('minor')
  const [probeIds, setProbeIds] = useState<string[]>([])
  const [message, setMessage] = useState('')
  const create = useMutation({
    mutationFn: () =>
      api.statusPages.incidents.create({ statusPageId: page.id, title, impact, probeIds, message }),
    onSuccess: async () => {
      setTitle('')
      setProbeIds([])
      setMessage('')
      await queryClient.invalidateQueries({ queryKey: incidentsKey(page.id) })
    },
  })
  const submit = (event: FormEvent) => {
    event.preventDefault()
    create.mutate()
  }
  const toggle = (probeId: string, on: boolean) =>
    setProbeIds((ids) => (on ? [...ids, probeId] : ids.filter((id) => id !== probeId)))
  return (
    <form onSubmit={submit} aria-labelledby="open-incident">
      <h2 id="open-incident">Open an incident</h2>
      <label>
        Title
        <input value={title} onChange={(e) => setTitle(e.target.value)} required maxLength={200} />
        <FieldError error={create.error} field="title" />
      </label>
      <label>
        Impact
        <select value={impact} onChange={(e) => setImpact(e.target.value as (typeof IMPACTS)[number])}>
          {IMPACTS.map((value) => (
            <option key={value} value={value}>
              {value}
            </option>
          ))}
        </select>
      </label>
      {listedProbes(page).length > 0 && (
        <fieldset>
          <legend>Affected probes</legend>
          {listedProbes(page).map((probe) => (
            <label key={probe.probeId} className="check">
              <input
                type="checkbox"
                checked={probeIds.includes(probe.probeId)}
                onChange={(e) => toggle(probe.probeId, e.target.checked)}
              />
              {probe.displayName}
            </label>
          ))}
        </fieldset>
      )}
      <label>
        Message
        <textarea
          value={message}
          onChange={(e) => setMessage(e.target.value)}
          required
          maxLength={5000}
          rows={3}
        />
        <FieldError error={create.error} field="message" />
      </label>
      <div className="actions">
        <button type="submit" disabled={create.isPending}>
          Open incident
        </button>
      </div>
      <FormProblem error={create.error} fields={['title', 'message']} />
    </form>
  )
}

/** An update to post on an incident: its new state and what to tell. */
export function PostUpdateForm({ incident }: { incident: Incident }) {
  const queryClient = useQueryClient()
  const [state, setState] = useState<(typeof STATES)[number]>(
    incident.state === 'resolved'
      ? 'resolved'
      : (STATES[Math.min(STATES.indexOf(incident.state) + 1, 3)] ?? 'resolved'),
  )
  const [message, setMessage] = useState('')
  const update = useMutation({
    mutationFn: () => api.statusPages.incidents.update({ id: incident.id, state, message }),
    onSuccess: async () => {
      setMessage('')
      await queryClient.invalidateQueries({ queryKey: incidentsKey(incident.statusPageId) })
    },
  })
  const submit = (event: FormEvent) => {
    event.preventDefault()
    update.mutate()
  }
  return (
    <form onSubmit={submit} aria-label={`Post an update to ${incident.title}`} className="card-section">
      <label>
        New state
        <select value={state} onChange={(e) => setState(e.target.value as (typeof STATES)[number])}>
          {STATES.map((value) => (
            <option key={value} value={value}>
              {value}
            </option>
          ))}
        </select>
      </label>
      <label>
        Update
        <textarea
          value={message}
          onChange={(e) => setMessage(e.target.value)}
          required
          maxLength={5000}
          rows={2}
        />
        <FieldError error={update.error} field="message" />
      </label>
      <div className="actions">
        <button type="submit" disabled={update.isPending}>
          Post update
        </button>
      </div>
      <FormProblem error={update.error} fields={['message']} />
    </form>
  )
}
