import { deliverChangelogWebhook } from '../changelog/jobs'
import { customHostnameRemoveJob } from '../custom-hostnames/remove-job'
import { customHostnameReplanJob } from '../custom-hostnames/replan'
import { customHostnameWriteJob } from '../custom-hostnames/write-job'
import { zoneSyncJob } from '../dns-servers/sync/jobs'
import { domainStepJob } from '../domains/jobs'
import { domainReplanJob } from '../domains/replan'
import { nodeHealthCheckJob } from '../fleet/health-job'
import { deliverOperationalNotification } from '../notifications/delivery-job'
import { deliverProbeNotification } from '../notifications/probes/delivery'
import { probeCheckJob } from '../probes/checks/job'
import { probeChecksJob } from '../probes/checks/pack-job'
import { probeScanTickJob } from '../probes/checks/scan-cron'
import { probeScanJob } from '../probes/checks/scan-shard'
import { routeReconcileJob } from '../routes/reconcile-job'
import { announceJob } from '../status-pages/subscribers/announce'
import { deliverAnnouncement } from '../status-pages/subscribers/deliver'
import { sendSubscriptionMail } from '../status-pages/subscribers/subscription-mail-job'
import type { JobMessage } from './messages'
import type { JobHandler } from './outcome'

/** The dispatch table: one handler per message type. */
export type JobHandlers = { [T in JobMessage['type']]: JobHandler<Extract<JobMessage, { type: T }>> }

export const jobHandlers: JobHandlers = {
  'changelog.webhook-delivery': deliverChangelogWebhook,
  'dns.zone-sync': zoneSyncJob,
  'custom-hostname.write': customHostnameWriteJob,
  'custom-hostname.remove': customHostnameRemoveJob,
  'custom-hostname.replan': customHostnameReplanJob,
  'route.reconcile': routeReconcileJob,
  'domain.step': domainStepJob,
  'domain.replan': domainReplanJob,
  'probe.scan': probeScanJob,
  'probe.scan.tick': probeScanTickJob,
  'probe.check': probeCheckJob,
  'probe.checks': probeChecksJob,
  'probe.notify': deliverProbeNotification,
  'node.health-check': nodeHealthCheckJob,
  'notification.deliver': deliverOperationalNotification,
  'status-page.announce': announceJob,
  'status-page.deliver': deliverAnnouncement,
  'status-page.subscription-mail': sendSubscriptionMail,
}
