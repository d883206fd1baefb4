import { eq } from 'drizzle-orm'
import type { Db } from '../db/client'
import { changelogWebhookTargets } from '../db/schema/changelog'
import { notFound } from '../rpc/errors'
import type { WebhookTargetRow } from './schemas'

export type TargetRecord = typeof changelogWebhookTargets.$inferSelect

/** The webhook target with this id; 404 when there is none. */
export async function getTarget(db: Db, id: string): Promise<TargetRecord> {
  const [target] = await db
    .select()
    .from(changelogWebhookTargets)
    .where(eq(changelogWebhookTargets.id, id))
    .limit(1)
  if (!target) throw notFound(`webhook target ${id}`)
  return target
}

/** A target as admins see it: never the secret, only hasSecret. */
export function toTargetRow(target: TargetRecord): WebhookTargetRow {
  return {
    id: target.id,
    url: target.url,
    enabled: target.enabled,
    hasSecret: true,
    disabledReason: target.disabledReason,
    createdAt: target.createdAt.toISOString(),
    updatedAt: target.updatedAt.toISOString(),
  }
}
