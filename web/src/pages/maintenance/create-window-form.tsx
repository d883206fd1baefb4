import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { type FormEvent, useState } from 'react'
import { api } from '../../api'
import { FieldError, FormProblem } from '../../components/form-problem'

export const LIST_KEY = ['maintenance.list']

const DAYS = [
  ['mon', 'Monday'],
  ['tue', 'Tuesday'],
  ['wed', 'Wednesday'],
  ['thu', 'Thursday'],
  ['fri', 'Friday'],
  ['sat', 'Saturday'],
  ['sun', 'Sunday'],
] as const
type Day = (typeof DAYS)[number][0]

const browserZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC'

/** A `datetime-local` value (the browser's local time) as an instant; empty stays empty for the panel to refuse. */
const instant = (local: string) => (local ? new Date(local).toISOString() : '')

/** Ticked ids: the probes or status pages a window covers. */
function useTicks() {
  const [ticked, setTicked] = useState<string[]>([])
  const toggle = (id: string, on: boolean) =>
    setTicked((now) => (on ? [...now, id] : now.filter((other) => other !== id)))
  return { ticked, toggle, clear: () => setTicked([]) }
}

/** A new window: one-off (local start and end) or weekly (days, local time, duration, zone), over ticked probes and pages. */
export function CreateWindowForm() {
  const [title, setTitle] = useState('')
  const [kind, setKind] = useState<'once' | 'weekly'>('once')
  const [startsAt, setStartsAt] = useState('')
  const [endsAt, setEndsAt] = useState('')
  const [days, setDays] = useState<Day[]>(['sun'])
  const [startTime, setStartTime] = useState('03:00')
  const [duration, setDuration] = useState(60)
  const [timezone, setTimezone] = useState(browserZone)
  const probeTicks = useTicks()
  const pageTicks = useTicks()
  const probes = useQuery({
    queryKey: ['probes.list', 'maintenance-form'],
    queryFn: () => api.probes.list({ limit: 500 }),
  })
  const statusPages = useQuery({
    queryKey: ['statusPages.list', 'maintenance-form'],
    queryFn: () => api.statusPages.list({ limit: 500 }),
  })
  const queryClient = useQueryClient()
  const create = useMutation({
    mutationFn: () =>
      api.maintenance.create({
        title,
        schedule:
          kind === 'once'
            ? { kind, startsAt: instant(startsAt), endsAt: instant(endsAt) }
            : { kind, days, startTime, durationMinutes: duration, timezone },
        probeIds: probeTicks.ticked,
        statusPageIds: pageTicks.ticked,
      }),
    onSuccess: async () => {
      setTitle('')
      probeTicks.clear()
      pageTicks.clear()
      await queryClient.invalidateQueries({ queryKey: LIST_KEY })
    },
  })
  const submit = (event: FormEvent) => {
    event.preventDefault()
    create.mutate()
  }
  const toggleDay = (day: Day, on: boolean) =>
    setDays((now) => (on ? [...now, day] : now.filter((other) => other !== day)))
  return (
    <form onSubmit={submit} aria-labelledby="add-window-heading">
      <h2 id="add-window-heading">Add a maintenance window</h2>
      <label>
        Title
        <input value={title} onChange={(e) => setTitle(e.target.value)} required />
        <FieldError error={create.error} field="title" />
      </label>
      <label>
        Repeats
        <select value={kind} onChange={(e) => setKind(e.target.value === 'weekly' ? 'weekly' : 'once')}>
          <option value="once">Once</option>
          <option value="weekly">Weekly</option>
        </select>
      </label>
      {kind === 'once' ? (
        <>
          <label>
            Starts (your local time)
            <input
              type="datetime-local"
              value={startsAt}
              onChange={(e) => setStartsAt(e.target.value)}
              required
            />
            <FieldError error={create.error} field="schedule.startsAt" />
          </label>
          <label>
            Ends (your local time)
            <input
              type="datetime-local"
              value={endsAt}
              onChange={(e) => setEndsAt(e.target.value)}
              required
            />
            <FieldError error={create.error} field="schedule.endsAt" />
          </label>
        </>
      ) : (
        <>
          <fieldset>
            <legend>Days</legend>
            {DAYS.map(([day, name]) => (
              <label key={day} className="check">
                <input
                  type="checkbox"
                  checked={days.includes(day)}
                  onChange={(e) => toggleDay(day, e.target.checked)}
                />
                {name}
              </label>
            ))}
            <FieldError error={create.error} field="schedule.days" />
          </fieldset>
          <label>
            Start time
            <input type="time" value={startTime} onChange={(e) => setStartTime(e.target.value)} required />
            <FieldError error={create.error} field="schedule.startTime" />
          </label>
          <label>
            Duration (minutes)
            <input
              type="number"
              min={1}
              max={10080}
              value={duration}
              onChange={(e) => setDuration(Number(e.target.value))}
              required
            />
            <FieldError error={create.error} field="schedule.durationMinutes" />
          </label>
          <label>
            Time zone
            <input value={timezone} onChange={(e) => setTimezone(e.target.value)} required />
            <FieldError error={create.error} field="schedule.timezone" />
          </label>
        </>
      )}
      <fieldset>
        <legend>Probes covered</legend>
        {probes.data?.length === 0 && <p>No probes yet.</p>}
        {probes.data?.map((probe) => (
          <label key={probe.id} className="check">
            <input
              type="checkbox"
              checked={probeTicks.ticked.includes(probe.id)}
              onChange={(e) => probeTicks.toggle(probe.id, e.target.checked)}
            />
            {probe.name}
          </label>
        ))}
        <FieldError error={create.error} field="probeIds" />
      </fieldset>
      <fieldset>
        <legend>Status pages covered (every probe they list)</legend>
        {statusPages.data?.statusPages.length === 0 && <p>No status pages yet.</p>}
        {statusPages.data?.statusPages.map((page) => (
          <label key={page.id} className="check">
            <input
              type="checkbox"
              checked={pageTicks.ticked.includes(page.id)}
              onChange={(e) => pageTicks.toggle(page.id, e.target.checked)}
            />
            {page.title} (/status/{page.slug})
          </label>
        ))}
      </fieldset>
      <button type="submit" disabled={create.isPending}>
        Add window
      </button>
      <FormProblem
        error={create.error}
        fields={[
          'title',
          'probeIds',
          'schedule.startsAt',
          'schedule.endsAt',
          'schedule.days',
          'schedule.startTime',
          'schedule.durationMinutes',
          'schedule.timezone',
        ]}
      />
    </form>
  )
}
