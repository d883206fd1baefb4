import { env } from 'cloudflare:workers'
import { eq } from 'drizzle-orm'
import { db } from '../../src/db/client'
import { probes } from '../../src/db/schema/probes'
import type { Env } from '../../src/env'
import { type Caller, ok } from '../helpers/http'

export const workerEnv = env as unknown as Env

export interface Probe {
  id: string
  name: string
  type: string
  targetKind: string
  targetId: string | null
  target: string
  state: string
  enabled: boolean
  consecutiveFailures: number
  lastChangedAt: string | null
  config: Record<string, unknown>
  notifyConfig: Record<string, unknown>
  hasWebhookSecret: boolean
  archivedAt: string | null
  createdAt: string
}

export interface CreatedProbe extends Probe {
  heartbeatToken: string | null
  heartbeatUrl: string | null
}

export interface ResultRow {
  probeId: string
  kind: string
  at: string
  state: string | null
  previousState: string | null
  upRatio: number
  checks: number
  failures: number
  degraded: number
  latencyMs: number | null
  latencyMaxMs: number | null
  detail: string | null
}

export interface ProbeDetail extends Probe {
  events: ResultRow[]
  deliveries: unknown[]
  lastPing: unknown
}

/** The origin the http probes of these tests check (faked with fakeOrigin). */
export const STATUS_ORIGIN = 'https://status.probes-example.com'

let count = 0

/** Creates an external http probe (or whatever `fields` make it) through probes.create. */
export function createProbe(admin: Caller, fields: Record<string, unknown> = {}): Promise<CreatedProbe> {
  return ok<CreatedProbe>(
    'probes.create',
    {
      name: `probe ${++count}`,
      type: 'http',
      targetKind: 'external',
      target: `${STATUS_ORIGIN}/health`,
      ...fields,
    },
    admin,
  )
}

/** The probe's catalogue row, as D1 holds it (not part of the API). */
export async function probeRecord(id: string) {
  const [row] = await db(workerEnv.DB).select().from(probes).where(eq(probes.id, id))
  return row
}
