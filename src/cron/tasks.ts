import { deliverySweepTask } from '../changelog/delivery-sweep-cron'
import { mirrorPullTask } from '../changelog/mirror-cron'
import { customHostnameSweepTask } from '../custom-hostnames/sweep-cron'
import { refreshZonesTask } from '../dns-accounts/refresh-zones-cron'
import { outOfSyncTask } from '../dns-servers/out-of-sync-cron'
import { syncSweepTask } from '../dns-servers/sync-sweep-cron'
import { domainSweepTask } from '../domains/sweep-cron'
import { nodeHealthTask } from '../fleet/health-cron'
import { heldNotificationsTask } from '../notifications/held-cron'
import { archivedCertProbeEventsTask } from '../probes/cert-operational'
import { monitorSyncTask } from '../probes/monitor-sync-cron'
import { probePruneTask } from '../probes/prune-cron'
import { probeScanTask } from '../probes/scan-cron'
import { routeSweepTask } from '../routes/sweep-cron'
import type { CronTask } from './task'

/** Every periodic task; scheduled() runs those whose schedule fired. */
export const cronTasks: CronTask[] = [
  refreshZonesTask,
  mirrorPullTask,
  deliverySweepTask,
  syncSweepTask,
  customHostnameSweepTask,
  routeSweepTask,
  domainSweepTask,
  probeScanTask,
  monitorSyncTask,
  probePruneTask,
  nodeHealthTask,
  outOfSyncTask,
  heldNotificationsTask,
  archivedCertProbeEventsTask,
]
