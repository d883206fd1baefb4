import { useMutation, useQueryClient } from '@tanstack/react-query'
import { type FormEvent, useId, useState } from 'react'
import { Link } from 'wouter'
import { api } from '../../api'
import { FieldError, FormProblem } from '../../components/form-problem'

/** Creates a zone on every nameserver box; a box that is down gets it from a retrying job. */
export function ZoneCreateForm() {
  const id = useId()
  const queryClient = useQueryClient()
  const [name, setName] = useState('')
  const create = useMutation({
    mutationFn: () => api.dnsServers.zones.create({ name }),
    onSuccess: () => {
      setName('')
      return queryClient.invalidateQueries({ queryKey: ['dnsServers'] })
    },
  })
  const submit = (event: FormEvent) => {
    event.preventDefault()
    create.mutate()
  }
  return (
    <form onSubmit={submit} aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Create a zone</h2>
      <label>
        Zone name
        <input value={name} onChange={(e) => setName(e.target.value)} placeholder="example.com" required />
        <FieldError error={create.error} field="name" />
      </label>
      <button type="submit" disabled={create.isPending}>
        {create.isPending ? 'Creating on every box…' : 'Create zone'}
      </button>
      <FormProblem error={create.error} fields={['name']} />
      <p aria-live="polite">
        {create.data && (
          <>
            Created <Link href={`/dns/zones/${create.data.id}`}>{create.data.name}</Link>.
          </>
        )}
      </p>
    </form>
  )
}
