import type { PublicIncident } from './incidents/public'
import { INCIDENT_HISTORY_DAYS } from './incidents/schema'
import {
  type ActiveMaintenance,
  type DailyBar,
  isWaiting,
  type PublicProbe,
  type PublicStatus,
} from './summary'

export const STATUS_STYLESHEET = '/status.css'

const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  )

const HEADLINES = {
  up: 'All systems operational',
  degraded: 'Some systems are degraded',
  flapping: 'Some systems are unstable',
  down: 'Some systems are down',
  paused: 'Monitoring is paused',
  maintenance: 'Maintenance in progress',
  waiting: 'Waiting for the first checks',
  incident: 'An incident is open',
} as const

const percent = (basisPoints: number) => `${(basisPoints / 100).toFixed(2)}%`

/** A bar's class: full (no failed check), partial (some) or down (at least a tenth failed); none without checks. */
function barClass(bar: DailyBar): string {
  if (bar.upRatio === null) return 'none'
  if (bar.upRatio === 10_000) return 'up'
  return bar.upRatio >= 9_000 ? 'partial' : 'down'
}

function bars(list: DailyBar[]): string {
  const items = list.map((bar) => {
    const label = `${bar.date}: ${bar.upRatio === null ? 'no checks' : percent(bar.upRatio)}`
    return `<li class="bar ${barClass(bar)}" title="${label}"><span>${label}</span></li>`
  })
  return `<ol class="bars">${items.join('')}</ol>`
}

const time = (iso: string) => `<time datetime="${iso}">${iso.slice(0, 16).replace('T', ' ')} UTC</time>`

const windowLine = (window: ActiveMaintenance) => `${escapeHtml(window.title)}, until ${time(window.endsAt)}`

/** A probe's label: its state, maintenance (with the window) while one covers it, or what it waits for. */
function probeLabel(probe: PublicProbe): string {
  if (probe.maintenance !== null)
    return `<span class="state maintenance" title="${escapeHtml(probe.maintenance.title)}">maintenance</span>`
  if (probe.awaiting !== null)
    return `<span class="state waiting">waiting for its first ${probe.awaiting}</span>`
  return `<span class="state ${probe.state}">${probe.state}</span>`
}

function probeMaintenance(probe: PublicProbe): string {
  return probe.maintenance === null ? '' : `<p class="probe-maintenance">${windowLine(probe.maintenance)}</p>`
}

const IMPACTS: Record<PublicIncident['impact'], string> = {
  none: 'No impact',
  minor: 'Minor impact',
  major: 'Major impact',
  critical: 'Critical impact',
}

const STATES: Record<PublicIncident['state'], string> = {
  investigating: 'Investigating',
  identified: 'Identified',
  monitoring: 'Monitoring',
  resolved: 'Resolved',
}

/** One incident with every update, newest first; a message keeps its line breaks (the stylesheet shows them). */
function incident(item: PublicIncident): string {
  const affects = item.affects.length ? ` \u00b7 Affects ${item.affects.map(escapeHtml).join(', ')}` : ''
  const updates = item.updates.map(
    (update) =>
      `<li><span class="update-state ${update.state}">${STATES[update.state]}</span> ${time(update.at)}<p class="message">${escapeHtml(update.message)}</p></li>`,
  )
  return `<article class="incident ${item.impact}">
<h3>${escapeHtml(item.title)}</h3>
<p class="incident-facts"><span class="impact ${item.impact}">${IMPACTS[item.impact]}</span>${affects}</p>
<ol class="updates">${updates.join('')}</ol>
</article>`
}

/** The open incidents (nothing when none), and the history: those resolved within INCIDENT_HISTORY_DAYS. */
function incidents(list: PublicIncident[]) {
  const open = list.filter((item) => item.resolvedAt === null)
  const past = list.filter((item) => item.resolvedAt !== null)
  return {
    open: open.length
      ? `<section class="incidents open"><h2>Current incidents</h2>${open.map(incident).join('\n')}</section>`
      : '',
    past: `<section class="incidents past"><h2>Past incidents</h2>${
      past.length
        ? past.map(incident).join('\n')
        : `<p>No incidents in the last ${INCIDENT_HISTORY_DAYS} days.</p>`
    }</section>`,
  }
}

/** The public status page: plain HTML and one stylesheet, no script (it works with JavaScript off). */
export function renderStatusHtml(status: PublicStatus): string {
  const probesSay = isWaiting(status) ? 'waiting' : status.state
  // A headline that says nothing is wrong (all up, paused, waiting) gives way to an open incident's.
  const incidentOpen = status.incidents.some((item) => item.resolvedAt === null && item.impact !== 'none')
  const calm = probesSay === 'up' || probesSay === 'paused' || probesSay === 'waiting'
  const overall = calm && incidentOpen ? 'incident' : probesSay
  const groups = status.groups.map(
    (group) =>
      `<section class="group"><h2>${escapeHtml(group.name)}</h2><ul class="probes">${group.probes
        .map(
          (probe) => `<li class="probe">
<div class="probe-head"><span class="name">${escapeHtml(probe.name)}</span>${probeLabel(probe)}</div>
${probeMaintenance(probe)}${bars(probe.bars)}
<div class="probe-foot"><span>90 days ago</span><span>${probe.uptime === null ? 'no checks' : `${percent(probe.uptime)} uptime`}</span><span>today</span></div>
</li>`,
        )
        .join('')}</ul></section>`,
  )
  const told = incidents(status.incidents)
  const events = status.events.map(
    (event) =>
      `<li>${time(event.at)} <span class="name">${escapeHtml(event.name)}</span> ${event.previousState ? `${event.previousState} \u2192 ` : ''}<span class="state ${event.state}">${event.state}</span></li>`,
  )
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(status.title)}</title>
<link rel="stylesheet" href="${STATUS_STYLESHEET}">
</head>
<body>
<main>
<h1>${escapeHtml(status.title)}</h1>
${status.description ? `<p class="description">${escapeHtml(status.description)}</p>` : ''}
<p class="overall ${overall}">${HEADLINES[overall]}</p>
${status.activeMaintenance.length ? `<ul class="maintenance">${status.activeMaintenance.map((window) => `<li>Maintenance: ${windowLine(window)}</li>`).join('')}</ul>` : ''}
${told.open}
${groups.join('\n')}
${told.past}
<section class="events"><h2>Recent changes</h2>${events.length ? `<ul>${events.join('')}</ul>` : '<p>No changes yet.</p>'}</section>
<footer>Updated ${time(status.generatedAt)}</footer>
</main>
</body>
</html>
`
}

/** The page a missing or private status page answers: the same for both, so nothing tells them apart. */
export function renderNotFoundHtml(): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Not found</title><link rel="stylesheet" href="${STATUS_STYLESHEET}"></head>
<body><main><h1>Not found</h1><p>There is no status page at this address.</p></main></body>
</html>
`
}
