import { Link } from 'wouter'
import { AREAS, type Summary } from './types'

/** One tile per area the reader may view: how many there are and how many fail now, linked to the area's page. */
export function CountTiles({ summary }: { summary: Summary }) {
  return (
    <ul className="tiles" aria-label="Counts">
      {AREAS.map(({ key, label, href, failing }) => {
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
          </li>
        )
      })}
    </ul>
  )
}
