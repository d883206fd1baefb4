import { z } from '@hono/zod-openapi'
import { streamProcedure } from '../../rpc/define'
import { StreamedOutput } from '../../rpc/streamed'
import { ProbeTargetKindSchema, WatchEventSchema, WatchInputSchema } from '../schemas'
import { assertStreamAdmitted, WATCH_STREAMS_PER_PRINCIPAL, watchPrincipalKey } from './caps'
import { WATCH_HUB_NAME, watchRequest } from './request'

// The GET route's query string carries text: intervalMs is coerced. Not strict, like every GET input: clients and
// caches add parameters of their own.
const WatchQuerySchema = z.object({
  targetKind: ProbeTargetKindSchema.optional(),
  targetId: WatchInputSchema.shape.targetId,
  intervalMs: z.coerce.number().int().min(250).max(10_000).default(1000),
})

export const watch = streamProcedure({
  permission: 'probes:view',
  summary: `A Server-Sent Events stream whose every event carries one probe \`{ id, name, state, enabled, lastChangedAt }\`: one event per watched probe first, then one per change of a probe’s state, enabled or lastChangedAt, none merged or skipped (written at most every intervalMs). Resumes after Last-Event-ID with exactly the missed changes; ends itself after 5 minutes. One user holds at most ${WATCH_STREAMS_PER_PRINCIPAL} open streams (429 with Retry-After past that, or when the panel holds too many)`,
  input: WatchInputSchema,
  output: WatchEventSchema,
  rest: { method: 'get', path: '/probes/watch', query: WatchQuerySchema },
  errors: ['rate_limited'],
  async handler(input, ctx) {
    const hub = ctx.env.WATCH_HUB.getByName(WATCH_HUB_NAME)
    return new StreamedOutput(async (lastEventId) => {
      const response = await hub.fetch(
        watchRequest({
          targetKind: input.targetKind ?? null,
          targetId: input.targetId ?? null,
          intervalMs: input.intervalMs,
          lastEventId,
          principal: watchPrincipalKey(ctx.principal),
        }),
      )
      await assertStreamAdmitted(response)
      if (!response.ok || !response.body) throw new Error(`the watch hub answered ${response.status}`)
      return response.body
    })
  },
})
