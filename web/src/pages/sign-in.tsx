import { useMutation, useQueryClient } from '@tanstack/react-query'
import { type FormEvent, useState } from 'react'
import { api, problemOf } from '../api'
import { FieldError, FormProblem } from '../components/form-problem'

// The sign-in throttle answers a wrong password over its budget with 429; the problem's detail says so, this says why.
function ThrottleNote({ error }: { error: unknown }) {
  if (problemOf(error)?.code !== 'rate_limited') return null
  return (
    <p className="note">
      Too many failed sign-ins from this device or network: each attempt here now takes a couple of seconds,
      to slow password guessing. The right password still signs you in.
    </p>
  )
}

/** Email and password; on success the session cookie is set and the pages load. */
export function SignInPage() {
  const [email, setEmail] = useState('')
  const [password, setPassword] = useState('')
  const queryClient = useQueryClient()
  const signIn = useMutation({
    mutationFn: () => api.auth.login({ email, password }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['auth.me'] }),
  })
  const submit = (event: FormEvent) => {
    event.preventDefault()
    signIn.mutate()
  }
  return (
    <main className="sign-in">
      <h1>Hosting Panel</h1>
      <form onSubmit={submit} aria-label="Sign in">
        <label>
          Email
          <input
            type="email"
            autoComplete="username"
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            required
          />
          <FieldError error={signIn.error} field="email" />
        </label>
        <label>
          Password
          <input
            type="password"
            autoComplete="current-password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            required
          />
          <FieldError error={signIn.error} field="password" />
        </label>
        <button type="submit" disabled={signIn.isPending}>
          Sign in
        </button>
        <FormProblem error={signIn.error} fields={['email', 'password']} />
        <ThrottleNote error={signIn.error} />
      </form>
    </main>
  )
}
