import { Link } from 'wouter'
import { AREAS, hrefOf, type Summary } from './types'

/** Everything down or failing now, each linked to the page that deals with it; "nothing" said plainly. */
export function FailingNow({ summary }: { summary: Summary }) {
  const failing = AREAS.flatMap(({ key, one, label, href }) => {
    const area = summary[key]
    if (!area || area.failing === 0) return []
    return [{ key, one, label, href, area }]
  })
  return (
    <section aria-labelledby="failing-heading">
      <h2 id="failing-heading">Down or failing now</h2>
      {failing.length === 0 ? (
        <p className="state state-up">Nothing is down or failing.</p>
      ) : (
        <ul className="failing-now">
          {failing.flatMap(({ key, one, label, href, area }) => [
            ...area.named.map((item) => (
              <li key={`${key}-${item.id}`}>
                <span className="note">{one}</span> <Link href={hrefOf(key, item)}>{item.name}</Link>{' '}
                <span className="state state-down">{item.state}</span>
              </li>
            )),
            ...(area.failing > area.named.length
              ? [
                  <li key={`${key}-more`}>
                    <Link href={href}>
                      and {area.failing - area.named.length} more {label.toLowerCase()}
                    </Link>
                  </li>,
                ]
              : []),
          ])}
        </ul>
      )}
    </section>
  )
}
