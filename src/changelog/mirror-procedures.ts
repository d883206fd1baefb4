import { z } from '@hono/zod-openapi'
import type { BatchItem } from '../db/client'
import { assertOutboundUrl } from '../lib/outbound-url'
import { HttpUrlSchema } from '../lib/schemas'
import { procedure } from '../rpc/define'
import { conflict } from '../rpc/errors'
import { invalidateFeed } from './feed-cache'
import {
  dropMirroredReleases,
  type MirrorSetting,
  pullMirror,
  readMirror,
  toMirrorState,
  writeMirror,
} from './mirror'
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
      'Set (or clear with null) the upstream feed URL this panel mirrors; clearing drops the mirrored releases, changing it starts afresh',
    input: z.strictObject({ upstream: HttpUrlSchema.nullable() }),
    output: MirrorStateSchema,
    async handler(input, ctx) {
      if (input.upstream !== null) assertOutboundUrl(ctx.env, 'upstream', input.upstream)
      const current = await readMirror(ctx.db)
      const now = new Date()
      const row: MirrorSetting =
        current && current.upstream === input.upstream
          ? { ...current, updatedAt: now }
          : {
              upstream: input.upstream,
              etag: null,
              lastPulledAt: null,
              lastStatus: null,
              lastError: null,
              updatedAt: now,
            }
      const writes: BatchItem[] = [writeMirror(ctx.db, row)]
      if (input.upstream === null) writes.push(...dropMirroredReleases(ctx.db))
      await ctx.commit(writes, { targetId: 'changelog.upstream', detail: { upstream: input.upstream } })
      invalidateFeed()
      return toMirrorState(row)
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
      const { state, writes, ...changes } = outcome
      await ctx.commit(writes, {
        targetId: 'changelog.upstream',
        outcome: state.lastStatus === 'failed' ? 'failure' : 'success',
        detail: { upstream: state.upstream, status: state.lastStatus, error: state.lastError, ...changes },
      })
      invalidateFeed()
      return { ...state, ...changes }
    },
  }),
}
