import { deliverySweepTask } from '../changelog/delivery-sweep-cron'
import { mirrorPullTask } from '../changelog/mirror-cron'
import { customHostnameStaleSweepTask } from '../custom-hostnames/stale-sweep-cron'
import { customHostnameSweepTask } from '../custom-hostnames/sweep-cron'
import { refreshZonesTask } from '../dns-accounts/refresh-zones-cron'
import { outOfSyncTask } from '../dns-servers/sync/out-of-sync-cron'
import { syncSweepTask } from '../dns-servers/sync/sweep-cron'
import { domainSweepTask } from '../domains/sweep-cron'
import { nodeHealthTask } from '../fleet/health-cron'
import { succeededJobsPruneTask } from '../jobs/prune-cron'
import { heldNotificationsTask } from '../notifications/held-cron'
import { probeScanTask } from '../probes/checks/scan-cron'
import { archivedCertProbeEventsTask } from '../probes/domain-cert/operational'
import { probePruneTask } from '../probes/history/prune-cron'
import { monitorSyncTask } from '../probes/monitor/sync-cron'
import { routeSweepTask } from '../routes/sweep-cron'
import type { CronTask } from './task'

/** Every periodic task; scheduled() runs those whose schedule fired. */
export const cronTasks: CronTask[] = [
  refreshZonesTask,
  mirrorPullTask,
  deliverySweepTask,
  syncSweepTask,
  customHostnameSweepTask,
  customHostnameStaleSweepTask,
  routeSweepTask,
  domainSweepTask,
  probeScanTask,
  monitorSyncTask,
  probePruneTask,
  succeededJobsPruneTask,
  nodeHealthTask,
  outOfSyncTask,
  heldNotificationsTask,
  archivedCertProbeEventsTask,
]
