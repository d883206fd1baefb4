import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { type FormEvent, useState } from 'react'
import { api, errorText } from '../../api'
import { FieldError, FormProblem } from '../../components/form-problem'
import { useSession } from '../../session'
import { ChangelogTabs } from './changelog-tabs'
import { DeliveriesSection } from './deliveries-section'
import type { Webhook } from './release-types'

const LIST_KEY = ['changelog.webhooks.list']

function CreateWebhook() {
  const [url, setUrl] = useState('')
  const [secret, setSecret] = useState('')
  const [enabled, setEnabled] = useState(true)
  const queryClient = useQueryClient()
  const create = useMutation({
    mutationFn: () => api.changelog.webhooks.create({ url, secret, enabled }),
    onSuccess: async () => {
      setUrl('')
      setSecret('')
      setEnabled(true)
      await queryClient.invalidateQueries({ queryKey: LIST_KEY })
    },
  })
  const submit = (event: FormEvent) => {
    event.preventDefault()
    create.mutate()
  }
  return (
    <form onSubmit={submit} aria-labelledby="add-webhook-heading">
      <h2 id="add-webhook-heading">Add a webhook</h2>
      <label>
        URL
        <input type="url" value={url} onChange={(e) => setUrl(e.target.value)} required />
        <FieldError error={create.error} field="url" />
      </label>
      <label>
        Secret
        <input
          type="password"
          autoComplete="new-password"
          value={secret}
          onChange={(e) => setSecret(e.target.value)}
          required
          minLength={16}
          aria-describedby="secret-hint"
        />
        <span className="hint" id="secret-hint">
          At least 16 characters; deliveries are signed with it (verify with verifyServiceSignature). Never
          shown again.
        </span>
        <FieldError error={create.error} field="secret" />
      </label>
      <label className="check">
        <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} />
        Enabled
      </label>
      <button type="submit" disabled={create.isPending}>
        Add webhook
      </button>
      <FormProblem error={create.error} fields={['url', 'secret']} />
    </form>
  )
}

function WebhookRow({ webhook, canEdit }: { webhook: Webhook; canEdit: boolean }) {
  const [secret, setSecret] = useState('')
  const [confirmRemove, setConfirmRemove] = useState(false)
  const queryClient = useQueryClient()
  const refresh = () => queryClient.invalidateQueries({ queryKey: LIST_KEY })
  const update = useMutation({
    mutationFn: (patch: { enabled?: boolean; secret?: string }) =>
      api.changelog.webhooks.update({ id: webhook.id, ...patch }),
    onSuccess: async () => {
      setSecret('')
      await refresh()
    },
  })
  const remove = useMutation({
    mutationFn: () => api.changelog.webhooks.remove({ id: webhook.id }),
    onSuccess: refresh,
  })
  return (
    <tr>
      <td>
        <code>{webhook.url}</code>
      </td>
      <td>
        {webhook.enabled ? 'enabled' : 'disabled'}
        {webhook.disabledReason && <span className="note"> ({webhook.disabledReason})</span>}
      </td>
      {canEdit && (
        <td>
          <div className="actions">
            <button
              type="button"
              className="secondary"
              disabled={update.isPending}
              onClick={() => update.mutate({ enabled: !webhook.enabled })}
            >
              {webhook.enabled ? 'Disable' : 'Enable'}
              <span className="visually-hidden"> {webhook.url}</span>
            </button>
            <input
              type="password"
              autoComplete="new-password"
              aria-label={`New secret for ${webhook.url}`}
              placeholder="new secret"
              value={secret}
              onChange={(e) => setSecret(e.target.value)}
            />
            <button
              type="button"
              className="secondary"
              disabled={secret.length === 0 || update.isPending}
              onClick={() => update.mutate({ secret })}
            >
              Replace secret
            </button>
            {confirmRemove ? (
              <button
                type="button"
                className="danger"
                onClick={() => remove.mutate()}
                disabled={remove.isPending}
              >
                Remove with its delivery history
              </button>
            ) : (
              <button type="button" className="danger" onClick={() => setConfirmRemove(true)}>
                Remove…
              </button>
            )}
          </div>
          <FieldError error={update.error} field="secret" />
          <FormProblem error={update.error ?? remove.error} fields={['secret']} />
        </td>
      )}
    </tr>
  )
}

/** The changelog's webhook targets, their recent deliveries, and a new target for settings:edit. */
export function WebhooksPage() {
  const { can } = useSession()
  const canEdit = can('settings:edit')
  const webhooks = useQuery({
    queryKey: LIST_KEY,
    queryFn: () => api.changelog.webhooks.list({ limit: 500 }),
  })
  return (
    <section>
      <h1>Changelog webhooks</h1>
      <ChangelogTabs />
      <p className="note">
        Each publish posts the release, signed, to every enabled target; a 410 disables a target, other
        failures retry with backoff (18 attempts).
      </p>
      {webhooks.isError && <p role="alert">{errorText(webhooks.error)}</p>}
      {webhooks.data?.length === 0 && <p>No webhooks.</p>}
      {webhooks.data && webhooks.data.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">URL</th>
              <th scope="col">State</th>
              {canEdit && <th scope="col">Actions</th>}
            </tr>
          </thead>
          <tbody>
            {webhooks.data.map((webhook) => (
              <WebhookRow key={webhook.id} webhook={webhook} canEdit={canEdit} />
            ))}
          </tbody>
        </table>
      )}
      {canEdit && <CreateWebhook />}
      <DeliveriesSection webhooks={webhooks.data ?? []} />
    </section>
  )
}
