import { useMutation, useQueryClient } from '@tanstack/react-query'
import { type FormEvent, useState } from 'react'
import { api } from '../../api'
import { FieldError, FormProblem } from '../../components/form-problem'
import type { AttachInput, DriversInfo } from './types'

type Driver = NonNullable<AttachInput['driver']>
type Issuer = NonNullable<AttachInput['issuer']>

/** Attaches a hostname to the site with a chosen driver (or the panel's choice), issuer and proxy flag. */
export function AttachForm({ siteId, drivers }: { siteId: string; drivers: DriversInfo }) {
  const queryClient = useQueryClient()
  const [driver, setDriver] = useState<Driver | ''>('')
  const proxyable = drivers.drivers.find((d) => d.id === driver)?.supportsProxy ?? false
  const attach = useMutation({
    mutationFn: (input: AttachInput) => api.domains.attach(input),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['domains.list', siteId] }),
  })
  const check = useMutation({
    mutationFn: (chosen: Driver) => api.domains.testCredentials({ driver: chosen }),
  })
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const element = event.currentTarget
    const form = new FormData(element)
    const hostname = String(form.get('hostname') ?? '')
      .trim()
      .toLowerCase()
    const issuer = drivers.issuers.find((id) => id === form.get('issuer'))
    attach.mutate(
      {
        siteId,
        hostname,
        ...(driver ? { driver } : {}),
        ...(issuer ? { issuer } : {}),
        ...(proxyable && form.get('proxied') === 'on' ? { proxied: true } : {}),
      },
      {
        onSuccess: () => {
          element.reset()
          setDriver('')
        },
      },
    )
  }
  return (
    <form onSubmit={submit} aria-label="Attach a domain">
      <label>
        Hostname
        <input name="hostname" required maxLength={253} placeholder="shop.example.com" />
        <FieldError error={attach.error} field="hostname" />
      </label>
      <label>
        DNS driver
        <select
          name="driver"
          value={driver}
          onChange={(e) => {
            setDriver(drivers.drivers.find((d) => d.id === e.target.value)?.id ?? '')
            check.reset()
          }}
        >
          <option value="">
            Let the panel choose (self-hosted zone, else the account cascade, else manual)
          </option>
          {drivers.drivers.map((d) => (
            <option key={d.id} value={d.id}>
              {d.label}
            </option>
          ))}
        </select>
        <FieldError error={attach.error} field="driver" />
      </label>
      <label>
        Certificate issuer
        <select name="issuer" defaultValue="">
          <option value="">Default (the issuer account default, else Let's Encrypt)</option>
          {drivers.issuers.map((issuer: Issuer) => (
            <option key={issuer} value={issuer}>
              {issuer}
            </option>
          ))}
        </select>
        <FieldError error={attach.error} field="issuer" />
      </label>
      {proxyable && (
        <label className="check">
          <input type="checkbox" name="proxied" />
          Proxied through the provider
        </label>
      )}
      <FormProblem error={attach.error} fields={['hostname', 'driver', 'issuer']} />
      {attach.data && (
        <p role="status" className="note">
          Attaching {attach.data.hostname}: its steps show above, as they happen.
        </p>
      )}
      {check.data && (
        <p role="status" className={check.data.ok ? 'note' : 'problem'}>
          {check.data.ok ? 'The driver works: ' : 'The driver failed: '}
          {check.data.detail}
        </p>
      )}
      <FormProblem error={check.error} />
      <div className="actions">
        <button type="submit" disabled={attach.isPending}>
          Attach domain
        </button>
        {driver && (
          <button
            type="button"
            className="secondary"
            onClick={() => check.mutate(driver)}
            disabled={check.isPending}
          >
            Test the driver's credentials
          </button>
        )}
      </div>
    </form>
  )
}
