import { CopyButton } from '../../components/copy-button'
import type { NewToken } from './types'

/** The token just minted, shown this once with a copy button; the panel keeps only its hash. */
export function NewTokenNotice({ token, onDismiss }: { token: NewToken; onDismiss: () => void }) {
  return (
    <div className="panel" role="status">
      <h2>Token {token.name} created</h2>
      <p>
        Copy it now: it is shown only once. Programs send it in the header{' '}
        <code>Authorization: Bearer &lt;token&gt;</code>
      </p>
      <p className="secret" data-testid="new-token">
        {token.token}
      </p>
      <div className="actions">
        <CopyButton text={token.token} label="token" />
        <button type="button" className="secondary" onClick={onDismiss}>
          I have stored it
        </button>
      </div>
    </div>
  )
}
