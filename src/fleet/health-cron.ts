import type { CronTask } from '../cron/task'
import { db } from '../db/client'
import { nodes } from '../db/schema/fleet'

/** A `node.health-check` message: check the node's agent for the minute `scheduledAt` (ms). */
export interface NodeHealthCheckMessage {
  type: 'node.health-check'
  nodeId: string
  scheduledAt: number
}

/** The most messages one `sendBatch` takes. */
const SEND_BATCH = 100

/** Each minute: one health check of every node's agent, each its own job, so a slow agent holds up no other. */
export const nodeHealthTask: CronTask = {
  name: 'node health checks',
  schedule: '* * * * *',
  async run(env, scheduledTime) {
    const all = await db(env.DB).select({ id: nodes.id }).from(nodes)
    const messages = all.map(({ id }) => {
      const body: NodeHealthCheckMessage = {
        type: 'node.health-check',
        nodeId: id,
        scheduledAt: scheduledTime,
      }
      return { body }
    })
    for (let i = 0; i < messages.length; i += SEND_BATCH) {
      await env.JOBS.sendBatch(messages.slice(i, i + SEND_BATCH))
    }
  },
}
