import { useMutation, useQueryClient } from '@tanstack/react-query'
import type { FormEvent } from 'react'
import { api } from '../../api'
import { FieldError, FormProblem } from '../../components/form-problem'

/** Opens a raw TCP/UDP port on the site's node, forwarded to a port of its instance. */
export function RawRouteForm({ siteId, instanceId }: { siteId: string; instanceId: string }) {
  const queryClient = useQueryClient()
  const open = useMutation({
    mutationFn: (input: { listenPort: number; targetPort: number; proto: 'tcp' | 'udp' }) =>
      api.routes.createRaw({ instanceId, siteId, ...input }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['routes.listForSite', siteId] }),
  })
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const element = event.currentTarget
    const form = new FormData(element)
    open.mutate(
      {
        listenPort: Number(form.get('listenPort')),
        targetPort: Number(form.get('targetPort')),
        proto: form.get('proto') === 'udp' ? 'udp' : 'tcp',
      },
      { onSuccess: () => element.reset() },
    )
  }
  return (
    <form onSubmit={submit} aria-label="Open a raw forward">
      <div className="row">
        <label>
          Port on the node
          <input name="listenPort" type="number" min={1} max={65535} required />
          <FieldError error={open.error} field="listenPort" />
        </label>
        <label>
          Port on the instance
          <input name="targetPort" type="number" min={1} max={65535} required />
          <FieldError error={open.error} field="targetPort" />
        </label>
        <label>
          Protocol
          <select name="proto" defaultValue="tcp">
            <option value="tcp">TCP</option>
            <option value="udp">UDP</option>
          </select>
        </label>
      </div>
      <FormProblem error={open.error} fields={['listenPort', 'targetPort']} />
      <div className="actions">
        <button type="submit" disabled={open.isPending}>
          Open forward
        </button>
      </div>
    </form>
  )
}
