import { Link, useLocation } from 'wouter'
import type { Permission } from '../session'
import { useSession } from '../session'

export interface AreaTab {
  href: string
  label: string
  permission: Permission
}

/** An area's own navigation: the tabs the principal may open, the current one marked. */
export function AreaTabs({ label, tabs }: { label: string; tabs: readonly AreaTab[] }) {
  const { can } = useSession()
  const [location] = useLocation()
  return (
    <nav aria-label={label} className="tabs">
      <ul>
        {tabs
          .filter((tab) => can(tab.permission))
          .map((tab) => (
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
