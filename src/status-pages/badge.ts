import type { PageState } from './summary'

/** What the badge says: the page's state, or `waiting` while its probes have not been checked yet. */
export type BadgeState = PageState | 'waiting'

/** shields.io's palette: brightgreen, yellow, orange, red, lightgrey, blue. */
const COLOURS: Record<BadgeState, string> = {
  up: '#4c1',
  degraded: '#dfb317',
  flapping: '#fe7d37',
  down: '#e05d44',
  paused: '#9f9f9f',
  waiting: '#9f9f9f',
  maintenance: '#007ec6',
}

const escapeXml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c] ?? c,
  )

/** Verdana 11px is about 7 pixels a character; shields pads each side by 5. */
const widthOf = (text: string) => Math.round([...text].length * 7) + 10

/** A flat shields-style badge: the label on grey, the state on its colour. Presentation attributes only (no style). */
export function renderBadge(label: string, state: BadgeState): string {
  const shortLabel = [...label].length > 40 ? `${[...label].slice(0, 39).join('')}\u2026` : label
  const left = widthOf(shortLabel)
  const right = widthOf(state)
  const total = left + right
  const text = escapeXml(shortLabel)
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${total}" height="20" role="img" aria-label="${text}: ${state}">
<title>${text}: ${state}</title>
<linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient>
<clipPath id="r"><rect width="${total}" height="20" rx="3" fill="#fff"/></clipPath>
<g clip-path="url(#r)"><rect width="${left}" height="20" fill="#555"/><rect x="${left}" width="${right}" height="20" fill="${COLOURS[state]}"/><rect width="${total}" height="20" fill="url(#s)"/></g>
<g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" font-size="11">
<text x="${left / 2}" y="15" fill="#010101" fill-opacity=".3">${text}</text><text x="${left / 2}" y="14">${text}</text>
<text x="${left + right / 2}" y="15" fill="#010101" fill-opacity=".3">${state}</text><text x="${left + right / 2}" y="14">${state}</text>
</g>
</svg>`
}
