import type { ChangelogDeliveryMessage } from '../changelog/webhook-deliveries'
import type { CustomHostnameMessage } from '../custom-hostnames/jobs'
import type { CustomHostnameReplanMessage } from '../custom-hostnames/replan'
import type { ZoneSyncMessage } from '../dns-servers/sync/jobs'
import type { DomainStepMessage } from '../domains/jobs'
import type { DomainReplanMessage } from '../domains/replan'
import type { NodeHealthCheckMessage } from '../fleet/health-cron'
import type { OperationalDeliveryMessage } from '../notifications/delivery-job'
import type { ProbeNotifyMessage } from '../notifications/probes/jobs'
import type { ProbeCheckMessage } from '../probes/checks/job'
import type { ProbeChecksMessage } from '../probes/checks/pack-job'
import type { ProbeScanTickMessage } from '../probes/checks/scan-cron'
import type { ProbeScanMessage } from '../probes/checks/scan-shard'
import type { RouteReconcileMessage } from '../routes/reconcile-job'
import type { AnnounceMessage, AnnouncementDeliveryMessage } from '../status-pages/subscribers/announce'
import type { SubscriptionMailMessage } from '../status-pages/subscribers/email-subscriptions'

/** Every message the JOBS queue carries; each area adds its own `{ type, ... }` variants. */
export type JobMessage =
  | ChangelogDeliveryMessage
  | ZoneSyncMessage
  | CustomHostnameMessage
  | CustomHostnameReplanMessage
  | RouteReconcileMessage
  | DomainStepMessage
  | DomainReplanMessage
  | ProbeScanMessage
  | ProbeScanTickMessage
  | ProbeCheckMessage
  | ProbeChecksMessage
  | ProbeNotifyMessage
  | NodeHealthCheckMessage
  | OperationalDeliveryMessage
  | AnnounceMessage
  | AnnouncementDeliveryMessage
  | SubscriptionMailMessage

/** A failed job an operator sent again from the jobs list: `job` runs as usual, its outcome lands on row `jobId`. */
export interface RetriedJobMessage {
  type: 'jobs.retried'
  jobId: string
  job: JobMessage
}

/** What the JOBS queue (and its dead-letter queue) carries: a job, or a job sent again. */
export type QueueMessage = JobMessage | RetriedJobMessage
