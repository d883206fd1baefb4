import { useSession } from '../../session'
import { ChangePasswordForm } from './change-password-form'

/** The signed-in user's own account: who they are, and their password. */
export function AccountPage() {
  const { me } = useSession()
  return (
    <section>
      <h1>Your account</h1>
      {me.user && (
        <dl className="facts">
          <dt>Email</dt>
          <dd>{me.user.email}</dd>
          <dt>Role</dt>
          <dd>{me.user.role}</dd>
        </dl>
      )}
      <h2>Password</h2>
      {me.kind === 'session' ? (
        <ChangePasswordForm />
      ) : (
        <p className="note">Only a signed-in user can change a password; an API token cannot.</p>
      )}
    </section>
  )
}
