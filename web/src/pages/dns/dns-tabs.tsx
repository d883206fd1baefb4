import { Link, useLocation } from 'wouter'
import type { Permission } from '../../session'
import { useSession } from '../../session'

const TABS: readonly { href: string; label: string; permission: Permission }[] = [
  { href: '/dns/zones', label: 'Zones', permission: 'domains:view' },
  { href: '/dns/nameservers', label: 'Nameservers', permission: 'domains:view' },
  { href: '/dns/accounts', label: 'Provider accounts', permission: 'settings:view' },
]

/** The DNS area's own navigation: the tabs the principal may open. */
export function DnsTabs() {
  const { can } = useSession()
  const [location] = useLocation()
  return (
    <nav aria-label="DNS" className="tabs">
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
