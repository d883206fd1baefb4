import { Link } from 'wouter'
import { AREAS, type Summary } from './types'

/**
 * One tile per area the reader may view, linked to the area's page: how many there are, how many fail now and,
 * when some do, how many are still on their way (a domain mid-attach, a hostname waiting for its records).
 */
export function CountTiles({ summary }: { summary: Summary }) {
  return (
    <ul className="tiles" aria-label="Counts">
      {AREAS.map(({ key, label, href, failing, waiting }) => {
        const area = summary[key]
        if (!area) return null
        const bad = failing !== undefined && area.failing > 0
        return (
          <li key={key} className={bad ? 'failing' : undefined}>
            <Link href={href}>
              <span className="count">{area.total}</span> {label}
            </Link>
            {failing !== undefined && (
              <div className={bad ? 'state state-down' : 'note'}>
                {area.failing} {failing}
              </div>
            )}
            {waiting !== undefined && area.waiting > 0 && (
              <div className="state state-pending" data-testid={`waiting-${key}`}>
                {area.waiting} {waiting}
              </div>
            )}
          </li>
        )
      })}
    </ul>
  )
}
