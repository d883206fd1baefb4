import { useMutation, useQueryClient } from '@tanstack/react-query'
import { type ReactNode, useRef } from 'react'
import { Link, useLocation } from 'wouter'
import { api } from './api'
import { currentArea } from './current-page'
import { routes } from './routes'
import { useKeyboardScrollingTables } from './scrolling-tables'
import { useSession } from './session'

/** The signed-in frame: the navigation (only what the principal may open) and sign-out. */
export function Layout({ children }: { children: ReactNode }) {
  const { me, can } = useSession()
  const [location] = useLocation()
  const queryClient = useQueryClient()
  const main = useRef<HTMLElement>(null)
  useKeyboardScrollingTables(main)
  const signOut = useMutation({
    mutationFn: () => api.auth.logout({}),
    onSettled: () => queryClient.resetQueries(),
  })
  const nav = routes.filter((route) => route.nav && (!route.permission || can(route.permission)))
  const current = currentArea(
    nav.map((route) => route.path),
    location,
  )
  return (
    <div className="frame">
      <header>
        <Link href="/" className="brand">
          Hosting Panel
        </Link>
        <nav aria-label="Main">
          <ul>
            {nav.map((route) => (
              <li key={route.path}>
                <Link href={route.path} aria-current={current === route.path ? 'page' : undefined}>
                  {route.nav}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <div className="who">
          <span>{me.user?.email}</span>
          <Link href="/account" aria-current={location === '/account' ? 'page' : undefined}>
            Account
          </Link>
          {/* The API reference is a static page beside the app, not one of its routes. */}
          <a href="/docs/">API reference</a>
          <button type="button" onClick={() => signOut.mutate()} disabled={signOut.isPending}>
            Sign out
          </button>
        </div>
      </header>
      <main ref={main}>{children}</main>
    </div>
  )
}
