import type { Env } from '../env'
import { clearOperationalEvent, raiseOperationalEvent } from '../notifications/operational'
import type { ProbeNotification } from './notify-jobs'

/** The operational event key of a probe routed to the operational recipients. */
export function probeEventKey(probeId: string): string {
  return `probe:${probeId}`
}

/**
 * A domain cert probe's notification told as the `domain.certificate` operational event: a problem raises it
 * (a reminder of an announced one adds nothing), back up clears it.
 */
export async function tellOperational(env: Env, notification: ProbeNotification): Promise<void> {
  const { probe, state, result } = notification
  const key = probeEventKey(probe.id)
  if (state === 'up' || state === 'paused') return clearOperationalEvent(env, key)
  await raiseOperationalEvent(env, {
    kind: 'domain.certificate',
    key,
    subject: `The certificate of ${probe.target} fails its check`,
    detail: [
      `The probe "${probe.name}" is ${state}.`,
      `Result: ${result ? `${result.detail} (${result.outcome}, at ${result.at})` : 'none'}`,
    ].join('\n'),
    link: `/monitoring/probes/${probe.id}`,
  })
}
