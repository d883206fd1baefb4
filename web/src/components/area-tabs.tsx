import { Link, useLocation } from 'wouter'
import { currentTab } from '../current-page'
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
  const shown = tabs.filter((tab) => can(tab.permission))
  const current = currentTab(
    shown.map((tab) => tab.href),
    location,
  )
  return (
    <nav aria-label={label} className="tabs">
      <ul>
        {shown.map((tab) => (
          <li key={tab.href}>
            <Link href={tab.href} aria-current={current === tab.href ? 'page' : undefined}>
              {tab.label}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  )
}
