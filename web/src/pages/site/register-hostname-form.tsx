import { useMutation, useQueryClient } from '@tanstack/react-query'
import { type FormEvent, useState } from 'react'
import { api } from '../../api'
import { FieldError, FormProblem } from '../../components/form-problem'
import { RecordsTable } from './records-table'

const REASONS: Record<string, string> = {
  'external-zone': 'the panel controls no zone holding it: the customer creates the records',
  'zone-not-allow-listed':
    'the zone is the panel’s but not on this site’s allow-list: the records are handed out',
  'ambiguous-zone': 'two holders claim the zone: the panel does not guess, the records are handed out',
  collision: 'the hostname is already a domain or another site’s custom hostname',
  'foreign-records':
    'records the panel did not create stand in the way: the customer removes them, then registers again',
  site_has_no_target: 'the site’s node has neither a DNS target nor an address: set one, then register again',
}

/** Records the panel did not create that stand in the way, as a person would find them in a DNS console. */
function InTheWay({ records }: { records?: readonly { type: string; name: string; value: string }[] }) {
  if (!records?.length) return null
  return <span> In the way: {records.map((r) => `${r.type} ${r.name} → ${r.value}`).join('; ')}.</span>
}

/** Checks a hostname (probe, writes nothing) and registers it for the site. */
export function RegisterHostnameForm({ siteId }: { siteId: string }) {
  const queryClient = useQueryClient()
  const [hostname, setHostname] = useState('')
  const probe = useMutation({
    mutationFn: (name: string) => api.customHostnames.probe({ siteId, hostname: name }),
  })
  const register = useMutation({
    mutationFn: (name: string) => api.customHostnames.register({ siteId, hostname: name }),
    onSuccess: () => {
      probe.reset()
      setHostname('')
      // Registering adds the hostname's http route too: the Routes table shows it.
      return Promise.all([
        queryClient.invalidateQueries({ queryKey: ['customHostnames.list', siteId] }),
        queryClient.invalidateQueries({ queryKey: ['routes.listForSite', siteId] }),
      ])
    },
  })
  const name = hostname.trim().toLowerCase()
  const submit = (event: FormEvent) => {
    event.preventDefault()
    register.mutate(name)
  }
  const plan = probe.data
  return (
    <form onSubmit={submit} aria-label="Register a custom hostname">
      <label>
        Customer hostname
        <input
          value={hostname}
          onChange={(e) => setHostname(e.target.value)}
          required
          maxLength={253}
          placeholder="shop.customer.example"
        />
        <FieldError error={probe.error ?? register.error} field="hostname" />
      </label>
      <div className="actions">
        <button
          type="button"
          className="secondary"
          disabled={!name || probe.isPending}
          onClick={() => probe.mutate(name)}
        >
          Check hostname
        </button>
        <button type="submit" disabled={register.isPending}>
          Register hostname
        </button>
      </div>
      <FormProblem error={probe.error ?? register.error} fields={['hostname']} />
      {plan && (
        <div className="panel" role="status">
          <p>
            <strong>{plan.hostname}</strong>: {plan.verdict}
            {plan.reason ? ` — ${REASONS[plan.reason] ?? plan.reason}` : ''}. Tier {plan.tier}, zone{' '}
            <code>{plan.zoneName}</code>
            {plan.registered ? '; already registered for this site' : ''}.
            <InTheWay records={plan.inTheWay} />
          </p>
          <RecordsTable records={plan.records} caption="Records the hostname needs" />
        </div>
      )}
      {register.data && (
        <p role="status" className="note">
          Registered {register.data.hostname}: {register.data.state}
          {register.data.reason ? ` (${REASONS[register.data.reason] ?? register.data.reason})` : ''}.
          <InTheWay records={register.data.inTheWay} />
        </p>
      )}
    </form>
  )
}
