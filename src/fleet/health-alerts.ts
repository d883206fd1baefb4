import { and, asc, eq, isNull } from 'drizzle-orm'
import type { Db } from '../db/client'
import { probes } from '../db/schema/probes'
import type { Env } from '../env'
import type { NodeAlertMessage, NodeHealthNotification } from './health-notification'

/**
 * Where a node's health alerts go, until the installation has a channel of its own for operational alerts: the
 * targets of the node's probes (enabled, not archived, `targetKind` node with the node's id), each email address
 * and each webhook URL once. They are delivered like those probes' notifications (`probe.notify`: signed with
 * the probe's webhook secret, retried, recorded in its deliveries). A node nobody watches with a probe alerts
 * no one (and its problem counts as not announced, so a probe added meanwhile hears of it at the next check);
 * its health still shows on `nodes.get`, `nodes.list` and the Fleet page.
 */
export async function alertMessages(
  database: Db,
  notification: NodeHealthNotification,
): Promise<NodeAlertMessage[]> {
  const watching = await database
    .select({ id: probes.id, notifyConfig: probes.notifyConfig })
    .from(probes)
    .where(
      and(
        eq(probes.targetKind, 'node'),
        eq(probes.targetId, notification.node.id),
        eq(probes.enabled, true),
        isNull(probes.archivedAt),
      ),
    )
    .orderBy(asc(probes.createdAt))
  const seen = new Set<string>()
  const messages: NodeAlertMessage[] = []
  for (const probe of watching) {
    const { webhookUrl, emails } = probe.notifyConfig
    const targets: NodeAlertMessage['target'][] = [
      ...(webhookUrl && !seen.has(webhookUrl) ? (['webhook'] as const) : []),
      ...emails.filter((email) => !seen.has(email)).map((email) => `email:${email}` as const),
    ]
    if (webhookUrl) seen.add(webhookUrl)
    for (const email of emails) seen.add(email)
    for (const target of targets)
      messages.push({ type: 'node.alert', probeId: probe.id, target, notification })
  }
  return messages
}

/** The most messages one `sendBatch` takes. */
const SEND_BATCH = 100

/** Queues the alert's deliveries. */
export async function sendAlert(env: Env, messages: readonly NodeAlertMessage[]): Promise<void> {
  const batch = messages.map((body) => ({ body }))
  for (let i = 0; i < batch.length; i += SEND_BATCH) {
    await env.JOBS.sendBatch(batch.slice(i, i + SEND_BATCH))
  }
}
