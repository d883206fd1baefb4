import { and, eq, inArray, isNotNull } from 'drizzle-orm'
import type { CronTask } from '../../cron/task'
import { db } from '../../db/client'
import { operationalEvents } from '../../db/schema/notifications'
import { probes } from '../../db/schema/probes'
import type { Env } from '../../env'
import { clearOperationalEvent, raiseOperationalEvent } from '../../notifications/operational'
import type { ProbeNotification } from '../../notifications/probes/jobs'

const PREFIX = 'probe:'
/** Open events looked at per minute: under D1's bound parameter limit. */
const BATCH = 90

/** The operational event key of a probe routed to the operational recipients. */
export function probeEventKey(probeId: string): string {
  return `${PREFIX}${probeId}`
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

/**
 * Each minute: clears the `domain.certificate` events of cert probes archived meanwhile (the domain failed or was
 * detached, which says so itself); the probe a domain gets when green again has a key of its own.
 */
export const archivedCertProbeEventsTask: CronTask = {
  name: 'archived cert probe events',
  schedule: '* * * * *',
  async run(env, scheduledTime) {
    const database = db(env.DB)
    const open = await database
      .select({ key: operationalEvents.key })
      .from(operationalEvents)
      .where(and(eq(operationalEvents.kind, 'domain.certificate'), eq(operationalEvents.state, 'open')))
      .limit(BATCH)
    if (open.length === 0) return
    const archived = await database
      .select({ id: probes.id })
      .from(probes)
      .where(
        and(
          inArray(
            probes.id,
            open.map(({ key }) => key.slice(PREFIX.length)),
          ),
          isNotNull(probes.archivedAt),
        ),
      )
    for (const { id } of archived)
      await clearOperationalEvent(env, probeEventKey(id), new Date(scheduledTime))
  },
}
