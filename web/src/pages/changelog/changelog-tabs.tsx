import { Link, useLocation } from 'wouter'
import type { Permission } from '../../session'
import { useSession } from '../../session'

const TABS: { href: string; label: string; permission: Permission }[] = [
  { href: '/changelog', label: 'Releases', permission: 'changelog:manage' },
  { href: '/changelog/webhooks', label: 'Webhooks', permission: 'settings:view' },
  { href: '/changelog/mirror', label: 'Mirror', permission: 'settings:view' },
]

/** The changelog's pages the principal may open. */
export function ChangelogTabs() {
  const { can } = useSession()
  const [location] = useLocation()
  return (
    <nav aria-label="Changelog" className="tabs">
      <ul>
        {TABS.filter((tab) => can(tab.permission)).map((tab) => (
          <li key={tab.href}>
            <Link href={tab.href} aria-current={location === tab.href ? 'page' : undefined}>
              {tab.label}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  )
}
