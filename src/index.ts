import { createApp } from './app'
import { runScheduled } from './cron/scheduled'
import type { Env } from './env'
import { consumeJobs } from './jobs/consumer'
import type { JobMessage } from './jobs/messages'

export { RateLimiter } from '../durable-objects/rate-limiter'

const app = createApp()

export default {
  fetch: app.fetch,
  queue: consumeJobs,
  async scheduled(controller, env, ctx) {
    ctx.waitUntil(runScheduled(controller, env))
  },
} satisfies ExportedHandler<Env, JobMessage>
