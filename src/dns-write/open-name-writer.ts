import type { Db } from '../db/client'
import type { Env } from '../env'
import { hostedNameWriter } from './hosted-name-writer'
import type { NameWriter } from './name-writer'
import { providerNameWriter } from './provider-name-writer'

/** The writer of a zone: the self-hosted zone `writerId`, or the DNS account `writerId` holding `zoneName`. */
export function openNameWriter(
  db: Db,
  env: Env,
  via: 'hosted' | 'connected',
  writerId: string,
  zoneName: string,
): Promise<NameWriter> {
  return via === 'hosted'
    ? hostedNameWriter(db, env, writerId)
    : providerNameWriter(db, env, writerId, zoneName)
}
