import { useQuery } from '@tanstack/react-query'
import { createContext, type ReactNode, useContext } from 'react'
import { api, problemOf } from './api'

type Me = Awaited<ReturnType<typeof api.auth.me>>
export type Permission = Me['permissions'][number]

export interface Session {
  me: Me
  /** Whether the signed-in principal holds the permission: pages offer only what it can do. */
  can(permission: Permission): boolean
}

const SessionContext = createContext<Session | null>(null)

/** The signed-in principal for the pages below; null while signed out. */
export function useSession(): Session {
  const session = useContext(SessionContext)
  if (!session) throw new Error('useSession outside a signed-in page')
  return session
}

/** Loads `auth.me`; renders `signedOut` on a 401 and `children` with the session otherwise. */
export function SessionGate({ children, signedOut }: { children: ReactNode; signedOut: ReactNode }) {
  const me = useQuery({
    queryKey: ['auth.me'],
    queryFn: () => api.auth.me({}),
    retry: (count, error) => problemOf(error)?.code !== 'unauthenticated' && count < 2,
  })
  if (me.isPending) return <p className="loading">Loading…</p>
  if (me.isError) {
    if (problemOf(me.error)?.code === 'unauthenticated') return <>{signedOut}</>
    return <p role="alert">The panel did not answer: {String(me.error)}</p>
  }
  const permissions = new Set<Permission>(me.data.permissions)
  const session: Session = { me: me.data, can: (permission) => permissions.has(permission) }
  return <SessionContext.Provider value={session}>{children}</SessionContext.Provider>
}
