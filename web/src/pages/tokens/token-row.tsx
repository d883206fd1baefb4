import { useMutation, useQueryClient } from '@tanstack/react-query'
import { api } from '../../api'
import { ConfirmButton } from '../../components/confirm-button'
import { FormProblem } from '../../components/form-problem'
import { TimeStamp } from '../../components/time-stamp'
import { type TokenRow, tokenState } from './types'

/** One API token: who made it (a user, or the token that minted it), what it may do, and revoke. */
export function TokenRowView({
  token,
  creator,
  parent,
}: {
  token: TokenRow
  /** The creator's email when the caller may read users; else their id. */
  creator: string
  /** The name of the token that minted this one, if one did. */
  parent: string | null
}) {
  const queryClient = useQueryClient()
  const revoke = useMutation({
    mutationFn: () => api.tokens.revoke({ id: token.id }),
    // Revoking also revokes every token minted under this one: the whole list changes.
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['tokens.list'] }),
  })
  const state = tokenState(token)
  return (
    <tr>
      <th scope="row">{token.name}</th>
      <td>{token.permissions.join(', ')}</td>
      <td>
        {creator}
        {parent !== null && <span className="note"> via token {parent}</span>}
      </td>
      <td>
        <TimeStamp iso={token.createdAt} />
      </td>
      <td>{token.expiresAt ? <TimeStamp iso={token.expiresAt} /> : 'never'}</td>
      <td>
        {state}
        {token.revokedAt && (
          <>
            {' '}
            <TimeStamp iso={token.revokedAt} />
          </>
        )}
      </td>
      <td>
        {state !== 'revoked' && (
          <ConfirmButton
            label={`Revoke ${token.name}`}
            confirmLabel={`Yes, revoke ${token.name} and the tokens it minted`}
            text="Revoke"
            pending={revoke.isPending}
            onConfirm={() => revoke.mutate()}
          />
        )}
        <FormProblem error={revoke.error} />
      </td>
    </tr>
  )
}
