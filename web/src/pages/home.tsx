import { Link } from 'wouter'
import { routes } from '../routes'
import { useSession } from '../session'

/** The first page after sign-in: who is signed in, and where they can go. */
export function HomePage() {
  const { me, can } = useSession()
  const areas = routes.filter((route) => route.nav && route.path !== '/')
  return (
    <section>
      <h1>Overview</h1>
      <p>
        Signed in as <strong>{me.user?.email ?? me.kind}</strong>
        {me.user ? ` (${me.user.role})` : ''}.
      </p>
      <ul className="cards">
        {areas
          .filter((route) => !route.permission || can(route.permission))
          .map((route) => (
            <li key={route.path}>
              <Link href={route.path}>{route.nav}</Link>
            </li>
          ))}
      </ul>
    </section>
  )
}
