/**
 * The tile for jobs that exhausted their retries (settings:view), beside the other counts. It shows nothing until
 * the panel can list failed jobs.
 */
export function DeadJobsTile() {
  return null
}
