import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { type FormEvent, useState } from 'react'
import { api } from '../../api'
import { FormProblem } from '../../components/form-problem'
import { QueryProblem } from '../../components/query-problem'
import { useSession } from '../../session'

const linesOf = (text: string) =>
  text
    .split(/\s+/)
    .map((zone) => zone.trim().toLowerCase())
    .filter(Boolean)

/** The zones the panel may write this site's custom-hostname records into; `*` allows every zone. */
export function AllowList({ siteId }: { siteId: string }) {
  const { can } = useSession()
  const edit = can('settings:edit')
  const queryClient = useQueryClient()
  const [draft, setDraft] = useState<string | null>(null)
  const settings = useQuery({
    queryKey: ['customHostnames.settings.get', siteId],
    queryFn: () => api.customHostnames.settings.get({ siteId }),
  })
  const save = useMutation({
    mutationFn: (allowedZones: string[]) => api.customHostnames.settings.set({ siteId, allowedZones }),
    onSuccess: (data) => {
      queryClient.setQueryData(['customHostnames.settings.get', siteId], data)
      setDraft(null)
    },
  })
  const saved = settings.data?.allowedZones ?? []
  const text = draft ?? saved.join('\n')
  const submit = (event: FormEvent) => {
    event.preventDefault()
    save.mutate(linesOf(text))
  }
  return (
    <section aria-labelledby="allow-list-heading">
      <h4 id="allow-list-heading">Zone allow-list</h4>
      <QueryProblem error={settings.error} what="the zone allow-list" />
      {settings.data?.warning && (
        <p className="warning" role="status">
          <strong>Warning:</strong> {settings.data.warning}
        </p>
      )}
      {settings.data && !edit && (
        <p>
          {saved.length > 0
            ? `Allowed: ${saved.join(', ')}`
            : 'Empty: the panel writes no DNS record for this site’s hostnames; it hands the records out.'}
        </p>
      )}
      {settings.data && edit && (
        <form onSubmit={submit} aria-label="Edit the zone allow-list">
          <label>
            <span>
              Zones the panel may write records into, one per line (empty: none; <code>*</code>: every zone)
            </span>
            <textarea rows={4} value={text} onChange={(e) => setDraft(e.target.value)} spellCheck={false} />
          </label>
          {draft !== null && linesOf(draft).includes('*') && !saved.includes('*') && (
            <p className="warning">
              <code>*</code> allow-lists every zone this panel controls, now and later: a site token could
              make the panel write records into any of them.
            </p>
          )}
          <FormProblem error={save.error} />
          <div className="actions">
            <button type="submit" disabled={save.isPending}>
              Save allow-list
            </button>
          </div>
        </form>
      )}
    </section>
  )
}
