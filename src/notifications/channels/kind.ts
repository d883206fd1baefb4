import type { z } from '@hono/zod-openapi'
import type { Env } from '../../env'
import type { ChannelAttempt } from './http'
import type { ChannelMessage } from './message'

/** A channel as its kind sends to it: the shown settings, the opened secret, and the optional origin override. */
export interface ChannelTarget<S, K> {
  id: string
  settings: S
  secret: K
  apiBaseUrl: string | null
}

/**
 * One kind of channel: the config it takes (split into shown `settings` and sealed `secret`), the URLs it will
 * call (held to the outbound rule when saved), the hint shown in place of the secret, and how it sends.
 */
export interface ChannelKindDef<S extends z.ZodObject, K extends z.ZodObject> {
  settings: S
  secret: K
  /** Whether `apiBaseUrl` means anything to this kind. */
  takesApiBaseUrl: boolean
  urls(target: Omit<ChannelTarget<z.output<S>, z.output<K>>, 'id'>): { field: string; url: string }[]
  hint(settings: z.output<S>, secret: z.output<K>): string
  send(
    env: Env,
    target: ChannelTarget<z.output<S>, z.output<K>>,
    message: ChannelMessage,
    /** The recipients earlier attempts of this delivery reached (kinds with one recipient ignore it). */
    deliveredBefore: readonly string[],
  ): Promise<ChannelAttempt>
}

export const defineKind = <S extends z.ZodObject, K extends z.ZodObject>(def: ChannelKindDef<S, K>) => def
