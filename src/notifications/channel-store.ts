import type { z } from '@hono/zod-openapi'
import { eq, inArray } from 'drizzle-orm'
import type { Principal } from '../auth/principal'
import type { Db } from '../db/client'
import { type ChannelKind, channels } from '../db/schema/channels'
import type { Env } from '../env'
import { urlFor } from '../lib/mask-url'
import { assertOutboundUrl } from '../lib/outbound-url'
import { openSecret, sealSecret } from '../lib/secrets'
import { invalid, notFound } from '../rpc/errors'
import type { Channel } from './channel-schemas'
import { permanent } from './channels'
import type { ChannelAttempt } from './channels/http'
import type { ChannelKindDef } from './channels/kind'
import { CHANNEL_KIND_DEFS } from './channels/kinds'
import type { ChannelMessage } from './channels/message'

export type ChannelRecord = typeof channels.$inferSelect

// The kinds' settings and secrets differ in shape; each def parses its own, so they meet here untyped.
type AnyKindDef = ChannelKindDef<z.ZodObject, z.ZodObject>
const defOf = (kind: ChannelKind) => CHANNEL_KIND_DEFS[kind] as unknown as AnyKindDef

/** The columns a config comes to: its shown settings, its sealed secret and the hint, its URLs checked. */
export async function storedConfig(
  env: Env,
  kind: ChannelKind,
  config: Record<string, unknown>,
  apiBaseUrl: string | null,
): Promise<Pick<ChannelRecord, 'settings' | 'secretSealed' | 'hint'>> {
  const def = defOf(kind)
  const settings = def.settings.parse(pick(config, def.settings))
  const secret = def.secret.parse(pick(config, def.secret))
  if (apiBaseUrl) assertOutboundUrl(env, 'apiBaseUrl', apiBaseUrl)
  for (const { field, url } of def.urls({ settings, secret, apiBaseUrl })) assertOutboundUrl(env, field, url)
  const hasSecret = Object.keys(def.secret.shape).length > 0
  return {
    settings,
    secretSealed: hasSecret ? await sealSecret(env, JSON.stringify(secret)) : null,
    hint: def.hint(settings, secret),
  }
}

function pick(config: Record<string, unknown>, schema: z.ZodObject): Record<string, unknown> {
  return Object.fromEntries(
    Object.keys(schema.shape).flatMap((key) => (key in config ? [[key, config[key]]] : [])),
  )
}

/** 400 for an apiBaseUrl on a kind without an HTTP API (email). */
export function assertTakesApiBaseUrl(kind: ChannelKind, apiBaseUrl: string | null): void {
  if (apiBaseUrl !== null && !defOf(kind).takesApiBaseUrl)
    throw invalid('apiBaseUrl', `means nothing to a ${kind} channel, which has no HTTP API`)
}

/** A channel as `principal` may read it: never its secret; its apiBaseUrl in full only for probes:manage. */
export function toChannel(row: ChannelRecord, principal: Principal): Channel {
  return {
    id: row.id,
    name: row.name,
    kind: row.kind,
    settings: row.settings,
    target: row.hint,
    hasSecret: row.secretSealed !== null,
    apiBaseUrl: row.apiBaseUrl && urlFor(principal, 'probes:manage', row.apiBaseUrl),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  }
}

export async function findChannel(database: Db, id: string): Promise<ChannelRecord | undefined> {
  const [row] = await database.select().from(channels).where(eq(channels.id, id)).limit(1)
  return row
}

export async function getChannel(database: Db, id: string): Promise<ChannelRecord> {
  const row = await findChannel(database, id)
  if (!row) throw notFound(`notification channel ${id}`)
  return row
}

/** Sends one message to a channel in its kind's wire format, skipping the recipients already reached. */
export async function sendToChannel(
  env: Env,
  row: ChannelRecord,
  message: ChannelMessage,
  deliveredBefore: readonly string[] = [],
): Promise<ChannelAttempt> {
  const def = defOf(row.kind)
  let secret: Record<string, unknown> = {}
  if (row.secretSealed) {
    try {
      secret = JSON.parse(await openSecret(env, row.secretSealed)) as Record<string, unknown>
    } catch {
      return {
        ...permanent('not sent: the channel secret could not be opened with the configured keys'),
        status: null,
        outcome: 'not_sent',
        serviceCode: null,
      }
    }
  }
  const target = {
    id: row.id,
    settings: def.settings.parse(row.settings),
    secret: def.secret.parse(secret),
    apiBaseUrl: row.apiBaseUrl,
  }
  return def.send(env, target, message, deliveredBefore)
}

/** 400 naming `<field>.N` (a probe's `notifyConfig.channels` by default) for the first id that names no channel. */
export async function assertChannelsExist(
  database: Db,
  ids: readonly string[],
  field = 'notifyConfig.channels',
): Promise<void> {
  if (ids.length === 0) return
  const found = await database
    .select({ id: channels.id })
    .from(channels)
    .where(inArray(channels.id, [...ids]))
  const known = new Set(found.map((row) => row.id))
  const index = ids.findIndex((id) => !known.has(id))
  if (index >= 0) throw invalid(`${field}.${index}`, `names no notification channel (${ids[index]})`)
}
