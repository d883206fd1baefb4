import { useMutation, useQueryClient } from '@tanstack/react-query'
import { type FormEvent, type InputHTMLAttributes, useId, useState } from 'react'
import { api } from '../../api'
import { FieldError, FormProblem } from '../../components/form-problem'

const FIELDS = [
  'name',
  'hostname',
  'publicIpv4',
  'publicIpv6',
  'agentUrl',
  'agentSecret',
  'powerDns.apiUrl',
  'powerDns.apiKey',
  'powerDns.serverId',
] as const

const EMPTY_FIELDS = { name: '', hostname: '', publicIpv4: '', publicIpv6: '', agentUrl: '', agentSecret: '' }
const EMPTY_POWERDNS = { apiUrl: '', apiKey: '', serverId: 'localhost' }

/** Enrolls a nameserver box (a node with the nameserver role), optionally adopting a PowerDNS already running. */
export function EnrollForm() {
  const id = useId()
  const queryClient = useQueryClient()
  const [fields, setFields] = useState(EMPTY_FIELDS)
  const [adopt, setAdopt] = useState(false)
  const [pdns, setPdns] = useState(EMPTY_POWERDNS)
  const enroll = useMutation({
    mutationFn: () =>
      api.dnsServers.nameservers.enroll({
        ...fields,
        publicIpv6: fields.publicIpv6.trim() ? fields.publicIpv6 : undefined,
        powerDns: adopt ? pdns : undefined,
      }),
    onSuccess: () => {
      // The next box starts from an empty form; the secrets, write-only, leave the page with it.
      setFields(EMPTY_FIELDS)
      setAdopt(false)
      setPdns(EMPTY_POWERDNS)
      return queryClient.invalidateQueries({ queryKey: ['dnsServers'] })
    },
  })
  const field = (
    key: keyof typeof fields,
    label: string,
    props: InputHTMLAttributes<HTMLInputElement> = {},
  ) => (
    <label>
      {label}
      <input
        value={fields[key]}
        onChange={(e) => setFields({ ...fields, [key]: e.target.value })}
        {...props}
      />
      <FieldError error={enroll.error} field={key} />
    </label>
  )
  const submit = (event: FormEvent) => {
    event.preventDefault()
    enroll.mutate()
  }
  return (
    <form onSubmit={submit} aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Enroll a nameserver</h2>
      {field('name', 'Name', { required: true, maxLength: 100 })}
      {field('hostname', 'Host name (what the NS records name)', {
        required: true,
        placeholder: 'ns1.example.net',
      })}
      {field('publicIpv4', 'Public IPv4', { required: true })}
      {field('publicIpv6', 'Public IPv6 (optional)')}
      {field('agentUrl', 'Node agent URL', { required: true, type: 'url' })}
      {field('agentSecret', 'Node agent secret (at least 16 characters, never shown again)', {
        required: true,
        type: 'password',
        autoComplete: 'off',
      })}
      <label className="check">
        <input type="checkbox" checked={adopt} onChange={(e) => setAdopt(e.target.checked)} />
        PowerDNS already runs on this box (adopt it instead of installing)
      </label>
      {adopt && (
        <fieldset>
          <legend>The running PowerDNS</legend>
          <label>
            API URL
            <input
              type="url"
              value={pdns.apiUrl}
              onChange={(e) => setPdns({ ...pdns, apiUrl: e.target.value })}
              required
            />
            <FieldError error={enroll.error} field="powerDns.apiUrl" />
          </label>
          <label>
            API key (never shown again)
            <input
              type="password"
              autoComplete="off"
              value={pdns.apiKey}
              onChange={(e) => setPdns({ ...pdns, apiKey: e.target.value })}
              required
            />
            <FieldError error={enroll.error} field="powerDns.apiKey" />
          </label>
          <label>
            Server id
            <input value={pdns.serverId} onChange={(e) => setPdns({ ...pdns, serverId: e.target.value })} />
            <FieldError error={enroll.error} field="powerDns.serverId" />
          </label>
        </fieldset>
      )}
      <button type="submit" disabled={enroll.isPending}>
        {enroll.isPending ? 'Enrolling…' : 'Enroll nameserver'}
      </button>
      <FormProblem error={enroll.error} fields={FIELDS} />
      <p aria-live="polite">{enroll.data && `Enrolled ${enroll.data.name} (${enroll.data.hostname}).`}</p>
    </form>
  )
}
