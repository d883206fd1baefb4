import type { ProbeNotification } from './jobs'

function duration(ms: number): string {
  const minutes = Math.floor(ms / 60_000)
  const unit = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`
  if (minutes < 1) return unit(Math.max(0, Math.round(ms / 1000)), 'second')
  if (minutes < 60) return unit(minutes, 'minute')
  const hours = Math.floor(minutes / 60)
  if (hours < 24)
    return [unit(hours, 'hour'), minutes % 60 ? unit(minutes % 60, 'minute') : ''].join(' ').trim()
  return [unit(Math.floor(hours / 24), 'day'), hours % 24 ? unit(hours % 24, 'hour') : ''].join(' ').trim()
}

/** The alert email's subject and plain text: what changed, the target, the result, and how long it was down. */
export function alertEmail(notification: ProbeNotification): { subject: string; text: string } {
  const { probe, previousState, state, at, result, downSince } = notification
  const reminder = notification.event === 'probe.still_down'
  const label = reminder ? 'STILL DOWN' : state.toUpperCase()
  const downFor = downSince === null ? null : duration(Date.parse(at) - Date.parse(downSince))
  const headline = reminder
    ? `${probe.name} is still down`
    : `${probe.name} is ${state} (it was ${previousState})`
  const lines = [
    `${headline}.`,
    '',
    `Target: ${probe.target} (${probe.type} probe on ${probe.targetKind}${probe.targetId ? ` ${probe.targetId}` : ''})`,
    `When: ${at}`,
    result
      ? `Result: ${result.detail} (${result.outcome}${result.latencyMs === null ? '' : ` in ${result.latencyMs} ms`}, at ${result.at})`
      : 'Result: none',
  ]
  if (state === 'flapping' && !reminder) lines.push('No further alerts are sent while it keeps flapping.')
  if (downSince && downFor !== null) {
    const since = `since ${downSince}`
    if (reminder) lines.push(`It has been down for ${downFor} (${since}).`)
    else if (previousState === 'down') lines.push(`It was down for ${downFor} (${since}).`)
  }
  lines.push('', `Probe id: ${probe.id}`)
  return { subject: `[${label}] ${probe.name}`, text: lines.join('\n') }
}
