import { z } from '@hono/zod-openapi'
import { assertOutboundUrl } from '../lib/outbound-url'
import { HttpUrlSchema } from '../lib/schemas'
import { procedure } from '../rpc/define'
import { conflict } from '../rpc/errors'
import { invalidateFeed } from './feed-cache'
import { pullMirror, readMirror, setUpstream, storePull, toMirrorState } from './mirror'
import { MirrorStateSchema } from './schemas'

export const mirrorProcedures = {
  get: procedure({
    kind: 'query',
    permission: 'settings:view',
    summary: 'The changelog.upstream setting and the outcome of the last mirror pull',
    input: z.strictObject({}),
    output: MirrorStateSchema,
    async handler(_input, ctx) {
      return toMirrorState(await readMirror(ctx.db))
    },
  }),
  set: procedure({
    kind: 'mutation',
    permission: 'settings:edit',
    audit: 'changelog.mirror-set',
    summary:
      'Set (or clear with null) the upstream feed URL this panel mirrors; changing or clearing it drops the mirrored releases and starts afresh',
    input: z.strictObject({ upstream: HttpUrlSchema.nullable() }),
    output: MirrorStateSchema,
    async handler(input, ctx) {
      if (input.upstream !== null) assertOutboundUrl(ctx.env, 'upstream', input.upstream)
      const { setting, writes } = setUpstream(ctx.db, await readMirror(ctx.db), input.upstream, new Date())
      await ctx.commit(writes, { targetId: 'changelog.upstream', detail: { upstream: input.upstream } })
      invalidateFeed()
      return toMirrorState(setting)
    },
  }),
  pull: procedure({
    kind: 'mutation',
    permission: 'settings:edit',
    audit: 'changelog.mirror-pull',
    summary:
      'Pull the upstream feed now; a failed or malformed pull keeps the last good copy and is reported in lastStatus and lastError',
    input: z.strictObject({}),
    output: MirrorStateSchema.extend({
      added: z.number().int(),
      updated: z.number().int(),
      removed: z.number().int(),
      skipped: z.array(z.string()),
    }).openapi('ChangelogMirrorPull'),
    errors: ['conflict'],
    async handler(_input, ctx) {
      const outcome = await pullMirror(ctx.db)
      if (!outcome) throw conflict('no upstream is set; set one with changelog.mirror.set')
      const { state, record, ...changes } = await storePull(ctx.db, outcome)
      await ctx.commit([record], {
        targetId: 'changelog.upstream',
        outcome: state.lastStatus === 'failed' ? 'failure' : 'success',
        detail: { upstream: state.upstream, status: state.lastStatus, error: state.lastError, ...changes },
      })
      invalidateFeed()
      return { ...state, ...changes }
    },
  }),
}
