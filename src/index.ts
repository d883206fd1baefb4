import { createApp } from './app'
import { runScheduled } from './cron/scheduled'
import type { Env } from './env'
import { consumeJobs } from './jobs/consumer'
import type { QueueMessage } from './jobs/messages'

export { HeartbeatLedger } from '../durable-objects/heartbeat-ledger'
export { ProbeMonitor } from '../durable-objects/probe-monitor'
export { ProviderPacer } from '../durable-objects/provider-pacer'
export { RateLimiter } from '../durable-objects/rate-limiter'
export { WatchHub } from '../durable-objects/watch-hub'

const app = createApp()

export default {
  fetch: app.fetch,
  queue: consumeJobs,
  // Awaited (not waitUntil) so the invocation lasts as long as its tasks, and `wrangler dev --test-scheduled`
  // answers /__scheduled once they finished (the benchmark times the scan that way).
  async scheduled(controller, env, _ctx) {
    await runScheduled(controller, env)
  },
} satisfies ExportedHandler<Env, QueueMessage>
