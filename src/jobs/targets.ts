import { eq } from 'drizzle-orm'
import type { Db } from '../db/client'
import { changelogWebhookDeliveries, changelogWebhookTargets } from '../db/schema/changelog'
import { customHostnames } from '../db/schema/custom-hostnames'
import { dnsZones, nameservers } from '../db/schema/dns-servers'
import { domains } from '../db/schema/domains'
import { nodes } from '../db/schema/fleet'
import { operationalDeliveries } from '../db/schema/notifications'
import { probes } from '../db/schema/probes'
import { statusPageJobName } from '../status-pages/subscribers/job-names'
import type { JobMessage } from './messages'

export interface JobTarget {
  targetKind:
    | 'webhook-delivery'
    | 'zone-box'
    | 'custom-hostname'
    | 'domain'
    | 'node'
    | 'probe'
    | 'notification-delivery'
    | 'probe-scan'
    | 'incident-update'
    | 'status-page-announcement'
    | 'status-page-subscription'
  targetId: string
}

/** What a job acts on, read from its message alone. A zone-sync acts on one box's copy: `<zoneId>:<nodeId>`. */
export function targetOf(message: JobMessage): JobTarget {
  switch (message.type) {
    case 'changelog.webhook-delivery':
      return { targetKind: 'webhook-delivery', targetId: message.deliveryId }
    case 'dns.zone-sync':
      return { targetKind: 'zone-box', targetId: `${message.zoneId}:${message.nodeId}` }
    case 'custom-hostname.write':
    case 'custom-hostname.remove':
      return { targetKind: 'custom-hostname', targetId: message.id }
    case 'domain.step':
      return { targetKind: 'domain', targetId: message.id }
    case 'custom-hostname.replan':
    case 'domain.replan':
    case 'route.reconcile':
    case 'node.health-check':
      return { targetKind: 'node', targetId: message.nodeId }
    case 'probe.scan':
    case 'probe.scan.tick':
    case 'probe.checks':
      return { targetKind: 'probe-scan', targetId: new Date(message.scanAt).toISOString() }
    case 'probe.check':
    case 'probe.notify':
      return { targetKind: 'probe', targetId: message.probeId }
    case 'notification.deliver':
      return { targetKind: 'notification-delivery', targetId: message.deliveryId }
    case 'status-page.announce':
      return { targetKind: 'incident-update', targetId: message.updateId }
    case 'status-page.deliver':
      return { targetKind: 'status-page-announcement', targetId: message.announcementId }
    case 'status-page.subscription-mail':
      return { targetKind: 'status-page-subscription', targetId: message.subscriptionId }
  }
}

async function first<T>(rows: Promise<T[]>): Promise<T | undefined> {
  return (await rows)[0]
}

function hostOf(url: string): string {
  try {
    return new URL(url).host
  } catch {
    return 'an unreadable URL'
  }
}

/** The target in words, from the rows it names; undefined when they are gone. Webhook URLs show their host only. */
async function named(db: Db, message: JobMessage): Promise<string | undefined> {
  switch (message.type) {
    case 'changelog.webhook-delivery': {
      const row = await first(
        db
          .select({ version: changelogWebhookDeliveries.version, url: changelogWebhookTargets.url })
          .from(changelogWebhookDeliveries)
          .innerJoin(
            changelogWebhookTargets,
            eq(changelogWebhookTargets.id, changelogWebhookDeliveries.targetId),
          )
          .where(eq(changelogWebhookDeliveries.id, message.deliveryId)),
      )
      return row && `changelog ${row.version} to ${hostOf(row.url)}`
    }
    case 'dns.zone-sync': {
      const zone = await first(
        db.select({ name: dnsZones.name }).from(dnsZones).where(eq(dnsZones.id, message.zoneId)),
      )
      const box = await first(
        db
          .select({ name: nameservers.hostname })
          .from(nameservers)
          .where(eq(nameservers.nodeId, message.nodeId)),
      )
      return zone && `${zone.name} on ${box?.name ?? `node ${message.nodeId}`}`
    }
    case 'custom-hostname.write':
    case 'custom-hostname.remove': {
      const row = await first(
        db
          .select({ name: customHostnames.hostname })
          .from(customHostnames)
          .where(eq(customHostnames.id, message.id)),
      )
      return row?.name
    }
    case 'domain.step': {
      const row = await first(
        db.select({ name: domains.hostname }).from(domains).where(eq(domains.id, message.id)),
      )
      return row?.name
    }
    case 'custom-hostname.replan':
    case 'domain.replan':
    case 'route.reconcile':
    case 'node.health-check': {
      const row = await first(db.select({ name: nodes.name }).from(nodes).where(eq(nodes.id, message.nodeId)))
      return row && `node ${row.name}`
    }
    case 'notification.deliver': {
      const row = await first(
        db
          .select({ channel: operationalDeliveries.channel, target: operationalDeliveries.target })
          .from(operationalDeliveries)
          .where(eq(operationalDeliveries.id, message.deliveryId)),
      )
      if (!row) return undefined
      return `operational notification to ${row.channel === 'webhook' ? hostOf(row.target) : row.target}`
    }
    case 'status-page.announce':
    case 'status-page.deliver':
    case 'status-page.subscription-mail':
      return statusPageJobName(db, message)
    case 'probe.scan':
      return `probe scan of ${new Date(message.scanAt).toISOString()}`
    case 'probe.scan.tick':
      return `probe scan tick of ${new Date(message.scanAt).toISOString()}`
    case 'probe.checks':
      return `${message.checks.length} probe checks of the scan of ${new Date(message.scanAt).toISOString()}`
    case 'probe.check':
    case 'probe.notify': {
      const row = await first(
        db.select({ name: probes.name }).from(probes).where(eq(probes.id, message.probeId)),
      )
      if (!row) return undefined
      return message.type === 'probe.check' ? `probe ${row.name}` : `probe ${row.name} to ${message.target}`
    }
  }
}

/** The target in words; `<kind> <id>` when its rows are gone or cannot be read. */
export async function describeTarget(db: Db, message: JobMessage): Promise<string> {
  const { targetKind, targetId } = targetOf(message)
  try {
    return (await named(db, message)) ?? `${targetKind} ${targetId}`
  } catch {
    return `${targetKind} ${targetId}`
  }
}
