import { z } from '@hono/zod-openapi'
import { eq, inArray } from 'drizzle-orm'
import type { Db } from '../db/client'
import { accountZones } from '../db/schema/accounts'
import { customHostnameSettings } from '../db/schema/custom-hostnames'
import { dnsZones } from '../db/schema/dns-servers'
import { getSite } from '../fleet/rows'
import { urlFor } from '../lib/mask-url'
import { assertOutboundUrl } from '../lib/outbound-url'
import { HttpUrlSchema } from '../lib/schemas'
import { reconcileNodeOfSite } from '../routes/reconcile-node'
import { procedure } from '../rpc/define'
import { invalid } from '../rpc/errors'
import { SettingsSchema, SiteIdSchema, SiteInputSchema } from './schemas'

/** Bounds of removeStaleAfterDays: a day of waiting before the day of notice, and at most a year. */
const MIN_STALE_DAYS = 2
const MAX_STALE_DAYS = 365

const ZoneEntrySchema = z
  .string()
  .max(253)
  .regex(/^(\*|[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+)$/, {
    message: 'must be a lowercase zone name or *',
  })

async function currentSettings(db: Db, siteId: string) {
  const [row] = await db
    .select({
      allowedZones: customHostnameSettings.allowedZones,
      askUrl: customHostnameSettings.askUrl,
      removeStaleAfterDays: customHostnameSettings.removeStaleAfterDays,
    })
    .from(customHostnameSettings)
    .where(eq(customHostnameSettings.siteId, siteId))
  return row ?? null
}

function warningFor(allowedZones: string[]): string | null {
  return allowedZones.includes('*')
    ? 'Every zone this installation controls (self-hosted or through a connected DNS account, now and later) is allow-listed: a site token can make the panel write records into any of them.'
    : null
}

export const settingsProcedures = {
  get: procedure({
    kind: 'query',
    permission: 'custom-hostnames:view',
    summary:
      "A site's allow-list of zones the panel may write custom-hostname records into, and the app's ask URL",
    input: SiteInputSchema,
    output: SettingsSchema,
    errors: ['not_found'],
    async handler(input, ctx) {
      await getSite(ctx.db, input.siteId)
      const row = await currentSettings(ctx.db, input.siteId)
      const allowedZones = row?.allowedZones ?? []
      return {
        siteId: input.siteId,
        allowedZones,
        warning: warningFor(allowedZones),
        askUrl: row?.askUrl ? urlFor(ctx.principal, 'settings:edit', row.askUrl) : null,
        removeStaleAfterDays: row?.removeStaleAfterDays ?? null,
      }
    },
  }),
  set: procedure({
    kind: 'mutation',
    permission: 'settings:edit',
    audit: 'custom-hostname.settings-set',
    summary:
      "Replace a site's allow-list: zone names the panel controls, or * for every zone (deny by default); set or clear the app's ask URL",
    input: z.strictObject({
      siteId: SiteIdSchema,
      allowedZones: z.array(ZoneEntrySchema).max(500),
      askUrl: HttpUrlSchema.nullable().optional().openapi({
        description:
          'The app endpoint the node asks (GET ?domain=<hostname>, 200 allows) before issuing a certificate for one of the site’s hostnames; null clears it, absent keeps it',
      }),
      removeStaleAfterDays: z
        .int('must be a whole number of days')
        .min(MIN_STALE_DAYS, `must be at least ${MIN_STALE_DAYS} days (the notice goes out a day before)`)
        .max(MAX_STALE_DAYS, `must be at most ${MAX_STALE_DAYS} days`)
        .nullable()
        .optional()
        .openapi({
          description:
            'Remove the site’s instructions and pending hostnames whose records never appeared this many days after their last register (announced to the operational notifications a day before); null turns it off (the default), absent keeps it',
        }),
    }),
    output: SettingsSchema,
    errors: ['not_found'],
    async handler(input, ctx) {
      if (input.askUrl) assertOutboundUrl(ctx.env, 'askUrl', input.askUrl)
      await getSite(ctx.db, input.siteId)
      const before = await currentSettings(ctx.db, input.siteId)
      const allowedZones = [...new Set(input.allowedZones)]
      const named = allowedZones.filter((zone) => zone !== '*')
      const known = new Set<string>()
      for (let i = 0; i < named.length; i += 50) {
        const chunk = named.slice(i, i + 50)
        const [hosted, connected] = await ctx.db.batch([
          ctx.db.select({ name: dnsZones.name }).from(dnsZones).where(inArray(dnsZones.name, chunk)),
          ctx.db
            .selectDistinct({ name: accountZones.zoneName })
            .from(accountZones)
            .where(inArray(accountZones.zoneName, chunk)),
        ])
        for (const zone of [...hosted, ...connected]) known.add(zone.name)
      }
      const unknown = input.allowedZones.findIndex((zone) => zone !== '*' && !known.has(zone))
      if (unknown !== -1)
        throw invalid(
          `allowedZones.${unknown}`,
          'is not a zone the panel controls (a self-hosted zone or one a connected DNS account holds)',
        )
      // Absent keeps the stored ask URL and stale setting (the allow-list form sends neither), null clears them.
      const changed = {
        ...(input.askUrl === undefined ? {} : { askUrl: input.askUrl }),
        ...(input.removeStaleAfterDays === undefined
          ? {}
          : { removeStaleAfterDays: input.removeStaleAfterDays }),
      }
      const updatedAt = new Date()
      await ctx.commit(
        [
          ctx.db
            .insert(customHostnameSettings)
            .values({
              siteId: input.siteId,
              allowedZones,
              askUrl: input.askUrl ?? null,
              removeStaleAfterDays: input.removeStaleAfterDays ?? null,
              updatedAt,
            })
            .onConflictDoUpdate({
              target: customHostnameSettings.siteId,
              set: { allowedZones, ...changed, updatedAt },
            }),
        ],
        // The ask URL's query may hold the app's secret: the audit entry keeps it masked.
        {
          targetId: input.siteId,
          detail: { allowedZones, ...changed },
        },
      )
      const askUrl = input.askUrl === undefined ? (before?.askUrl ?? null) : input.askUrl
      if (askUrl !== (before?.askUrl ?? null)) await reconcileNodeOfSite(ctx.env, ctx.db, input.siteId)
      const removeStaleAfterDays =
        input.removeStaleAfterDays === undefined
          ? (before?.removeStaleAfterDays ?? null)
          : input.removeStaleAfterDays
      return {
        siteId: input.siteId,
        allowedZones,
        warning: warningFor(allowedZones),
        askUrl,
        removeStaleAfterDays,
      }
    },
  }),
}
