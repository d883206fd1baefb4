import type { Principal } from '../../auth/principal'
import { urlFor } from '../../lib/mask-url'

/** A probe as `principal` may read it: the alert webhook URL in full only for probes:manage, who may change it. */
export function notifyUrlFor<T extends { notifyConfig: { webhookUrl?: string | null } }>(
  principal: Principal,
  probe: T,
): T {
  const { webhookUrl } = probe.notifyConfig
  if (!webhookUrl) return probe
  return {
    ...probe,
    notifyConfig: { ...probe.notifyConfig, webhookUrl: urlFor(principal, 'probes:manage', webhookUrl) },
  }
}
