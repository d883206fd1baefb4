/** Exponential backoff for queue retries: 30 s doubling per attempt, capped at the Queue's 12 hour maximum delay. */
export function backoffSeconds(attempts: number): number {
  return Math.min(30 * 2 ** Math.max(0, attempts - 1), 12 * 60 * 60)
}
