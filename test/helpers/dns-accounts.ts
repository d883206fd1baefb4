import { beforeAll } from 'vitest'
import type { DnsFake } from '../fakes/dns-fake'
import { type Caller, ok } from './http'
import { fakeOrigin } from './outbound'
import { adminSession, operatorSession } from './principals'

// For test/dns-accounts-*.test.ts. Importing this module registers their beforeAll: an admin and an operator.

interface TestState {
  ok: boolean
  detail: string
  retryAfterSeconds: number | null
  testedAt: string
}
export interface Row {
  id: string
  name: string
  updatedAt: string
  provider: string
  zoneId?: string | null
  apiBaseUrl: string | null
  lastTestState: TestState
  hasToken: true
}
export interface TestResult {
  ok: boolean
  detail: string
}
export interface Zones {
  zones: { id: string; name: string }[]
  refreshedAt: string | null
}

export const DNS_ROW_KEYS = [
  'apiBaseUrl',
  'createdAt',
  'hasToken',
  'id',
  'lastTestState',
  'name',
  'provider',
  'updatedAt',
  'zoneId',
]

export let admin: Caller
export let operator: Caller
let counter = 0
export const uniqueName = (prefix: string) => `${prefix}-${++counter}`

export function installed<F extends DnsFake>(fake: F, ...zones: string[]): F {
  for (const zone of zones) fake.addZone(zone)
  fakeOrigin(fake.origin, fake.handle)
  return fake
}

export async function createDns(fake: DnsFake, extra: Record<string, unknown> = {}, provider = 'provider_a') {
  return ok<Row>(
    'accounts.create',
    { kind: 'dns', name: uniqueName(provider), provider, token: fake.token, ...extra },
    admin,
  )
}

beforeAll(async () => {
  admin = await adminSession()
  operator = await operatorSession(admin)
})
