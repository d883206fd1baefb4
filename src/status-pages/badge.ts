import type { PageState } from './summary'

/** What the badge says: the page's state, or `waiting` while its probes have not been checked yet. */
export type BadgeState = PageState | 'waiting'

/** shields.io's named colours (what its endpoint JSON takes) and their hex. */
export const SHIELDS_COLOURS = {
  brightgreen: '#4c1',
  green: '#97ca00',
  yellowgreen: '#a4a61d',
  yellow: '#dfb317',
  orange: '#fe7d37',
  red: '#e05d44',
  lightgrey: '#9f9f9f',
  blue: '#007ec6',
} as const

export type ShieldsColour = keyof typeof SHIELDS_COLOURS

/** Each state's colour. */
export const STATE_COLOURS: Record<BadgeState, ShieldsColour> = {
  up: 'brightgreen',
  degraded: 'yellow',
  flapping: 'orange',
  down: 'red',
  paused: 'lightgrey',
  waiting: 'lightgrey',
  maintenance: 'blue',
}

const escapeXml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c] ?? c,
  )

/** Verdana 11px is about 7 pixels a character; shields pads each side by 5. */
const widthOf = (text: string) => Math.round([...text].length * 7) + 10

/** A flat shields-style badge: the label on grey, the message on `colour` (hex). Presentation attributes only. */
export function renderFlatBadge(label: string, message: string, colour: string): string {
  const shortLabel = [...label].length > 40 ? `${[...label].slice(0, 39).join('')}\u2026` : label
  const left = widthOf(shortLabel)
  const right = widthOf(message)
  const total = left + right
  const text = escapeXml(shortLabel)
  const value = escapeXml(message)
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${total}" height="20" role="img" aria-label="${text}: ${value}">
<title>${text}: ${value}</title>
<linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient>
<clipPath id="r"><rect width="${total}" height="20" rx="3" fill="#fff"/></clipPath>
<g clip-path="url(#r)"><rect width="${left}" height="20" fill="#555"/><rect x="${left}" width="${right}" height="20" fill="${colour}"/><rect width="${total}" height="20" fill="url(#s)"/></g>
<g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" font-size="11">
<text x="${left / 2}" y="15" fill="#010101" fill-opacity=".3">${text}</text><text x="${left / 2}" y="14">${text}</text>
<text x="${left + right / 2}" y="15" fill="#010101" fill-opacity=".3">${value}</text><text x="${left + right / 2}" y="14">${value}</text>
</g>
</svg>`
}

/** The page's badge: its title, and its state on the state's colour. */
export function renderBadge(label: string, state: BadgeState): string {
  return renderFlatBadge(label, state, SHIELDS_COLOURS[STATE_COLOURS[state]])
}
