import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import type { FormEvent } from 'react'
import { api } from '../../api'
import { ConfirmButton } from '../../components/confirm-button'
import { CopyButton } from '../../components/copy-button'
import { FieldError, FormProblem } from '../../components/form-problem'
import { QueryProblem } from '../../components/query-problem'
import { UtcTimeInput, utcInstant } from '../../components/utc-time-input'
import { useSession } from '../../session'
import { when } from './format'
import type { SiteTokenPermission } from './types'

const PERMISSIONS: readonly SiteTokenPermission[] = ['custom-hostnames:view', 'custom-hostnames:manage']

function MintForm({ siteId }: { siteId: string }) {
  const queryClient = useQueryClient()
  const mint = useMutation({
    mutationFn: (input: { name: string; permissions: SiteTokenPermission[]; expiresAt?: string }) =>
      api.sites.tokens.create({ siteId, ...input }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['sites.tokens.list', siteId] }),
  })
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = new FormData(event.currentTarget)
    const expires = utcInstant(String(form.get('expiresAt') ?? ''))
    mint.mutate({
      name: String(form.get('name') ?? '').trim(),
      permissions: PERMISSIONS.filter((permission) => form.get(permission) === 'on'),
      ...(expires ? { expiresAt: expires } : {}),
    })
  }
  if (mint.data)
    return (
      <div className="panel" role="status">
        <p>
          <strong>Token {mint.data.name} minted.</strong> It is shown only now: put it in the app's
          environment.
        </p>
        <p className="secret" data-testid="site-token">
          {mint.data.token}
        </p>
        <div className="actions">
          <CopyButton text={mint.data.token} label="Copy token" />
          <button type="button" className="secondary" onClick={() => mint.reset()}>
            I have stored it
          </button>
        </div>
      </div>
    )
  return (
    <form onSubmit={submit} aria-label="Mint a site token">
      <label>
        Token name
        <input name="name" required maxLength={100} placeholder="shop app, production" />
        <FieldError error={mint.error} field="name" />
      </label>
      <fieldset>
        <legend>Permissions</legend>
        {PERMISSIONS.map((permission) => (
          <label key={permission} className="check">
            <input type="checkbox" name={permission} defaultChecked />
            {permission}
          </label>
        ))}
        <FieldError error={mint.error} field="permissions" />
      </fieldset>
      <UtcTimeInput name="expiresAt" label="Expires (optional)">
        <FieldError error={mint.error} field="expiresAt" />
      </UtcTimeInput>
      <FormProblem error={mint.error} fields={['name', 'permissions', 'expiresAt']} />
      <div className="actions">
        <button type="submit" disabled={mint.isPending}>
          Mint site token
        </button>
      </div>
    </form>
  )
}

/** The site's `spat_` tokens: listed (never the secret again), revocable, and a mint form showing the new one once. */
export function SiteTokens({ siteId }: { siteId: string }) {
  const { can } = useSession()
  const manage = can('custom-hostnames:manage')
  const queryClient = useQueryClient()
  const tokens = useQuery({
    queryKey: ['sites.tokens.list', siteId],
    queryFn: () => api.sites.tokens.list({ siteId, limit: 500 }),
  })
  const revoke = useMutation({
    mutationFn: (id: string) => api.sites.tokens.revoke({ id }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['sites.tokens.list', siteId] }),
  })
  return (
    <section aria-labelledby="site-tokens-heading">
      <h4 id="site-tokens-heading">Site tokens</h4>
      <p className="note">
        A site token lets the site's app call the custom-hostname procedures for this site only. Rotate by
        minting a new one, deploying it, then revoking the old one.
      </p>
      <QueryProblem error={tokens.error} what="the site tokens" />
      {tokens.data?.length === 0 && <p className="note">No site token.</p>}
      {tokens.data && tokens.data.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Permissions</th>
              <th scope="col">Created</th>
              <th scope="col">Expires</th>
              <th scope="col">State</th>
              {manage && <th scope="col">Actions</th>}
            </tr>
          </thead>
          <tbody>
            {tokens.data.map((token) => (
              <tr key={token.id}>
                <td>{token.name}</td>
                <td>{token.permissions.join(', ')}</td>
                <td>{when(token.createdAt)}</td>
                <td>{token.expiresAt ? when(token.expiresAt) : 'never'}</td>
                <td>{token.revokedAt ? `revoked ${when(token.revokedAt)}` : 'active'}</td>
                {manage && (
                  <td>
                    {!token.revokedAt && (
                      <ConfirmButton
                        label={`Revoke ${token.name}`}
                        confirmLabel={`Yes, revoke ${token.name}`}
                        text="Revoke"
                        confirmText="Yes, revoke"
                        pending={revoke.isPending}
                        onConfirm={() => revoke.mutate(token.id)}
                      />
                    )}
                    {revoke.variables === token.id && <FormProblem error={revoke.error} />}
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {manage && <MintForm siteId={siteId} />}
    </section>
  )
}
