import { beforeAll, beforeEach, expect } from 'vitest'
import { verifyServiceSignature } from '../../src/client'
import type { JobMessage } from '../../src/jobs/messages'
import { captureJobs, publishRelease, type ReleaseRow } from './changelog'
import { type Caller, ok } from './http'
import { fakeOrigin, interceptOutbound } from './outbound'
import { adminSession } from './principals'
import { independentSignature } from './service-signature'

// For test/changelog-webhooks-*.test.ts. Importing this module registers their hooks: an admin session and
// the captured JOBS queue once, outbound interception and every target disabled before each test.

export interface Target {
  id: string
  url: string
  enabled: boolean
  hasSecret: true
  disabledReason: string | null
}
interface Delivery {
  id: string
  targetId: string
  releaseId: string
  version: string
  status: string
  attempts: number
  lastError: string | null
  lastStatusCode: number | null
  nextAttemptAt: string | null
  deliveredAt: string | null
}
interface Received {
  headers: Headers
  body: string
}

export const HOOKS = 'https://hooks.example.test'
export const SECRET = 'target-secret-0123456789abcdef'
export let admin: Caller
export let jobs: ReturnType<typeof captureJobs>
let versionCounter = 0

/** A fake webhook receiver on `origin` that answers each request with the next status (the last one repeats). */
export function receiver(origin: string, answers: (number | Response)[] = [200]): Received[] {
  const received: Received[] = []
  fakeOrigin(origin, async (request) => {
    received.push({ headers: request.headers, body: await request.text() })
    const answer = answers[Math.min(received.length - 1, answers.length - 1)] ?? 200
    return typeof answer === 'number' ? new Response(null, { status: answer }) : answer
  })
  return received
}

export async function createTarget(url: string, enabled = true, secret = SECRET): Promise<Target> {
  return ok<Target>('changelog.webhooks.create', { url, secret, enabled }, admin)
}

export async function deliveries(filter: { targetId?: string; releaseId?: string }): Promise<Delivery[]> {
  return ok<Delivery[]>('changelog.webhooks.deliveries', filter, admin)
}

export function nextVersion(): string {
  return `10.${++versionCounter}.0`
}

/** Publishes a fresh release and returns it with the queue messages the publish sent. */
export async function publish(
  fields: Record<string, unknown> = {},
): Promise<{ release: ReleaseRow; messages: JobMessage[] }> {
  jobs.sent.length = 0
  const release = await publishRelease(admin, nextVersion(), '2026-06-01', fields)
  return { release, messages: jobs.sent.splice(0) }
}

/** Asserts that a request carries a valid signature of its exact body under SECRET. */
export async function expectSigned(hit: Received): Promise<void> {
  const timestamp = hit.headers.get('x-service-timestamp') ?? ''
  expect(timestamp).toMatch(/^\d{13}$/)
  expect(Math.abs(Date.now() - Number(timestamp))).toBeLessThan(60_000)
  expect(hit.headers.get('x-service-signature')).toBe(await independentSignature(SECRET, timestamp, hit.body))
  expect(await verifyServiceSignature(hit.body, hit.headers, SECRET)).toEqual({ ok: true })
}

async function disableAllTargets(): Promise<void> {
  for (const target of await ok<Target[]>('changelog.webhooks.list', {}, admin)) {
    await ok('changelog.webhooks.update', { id: target.id, enabled: false }, admin)
  }
}

beforeAll(async () => {
  admin = await adminSession()
  jobs = captureJobs()
})

beforeEach(async () => {
  interceptOutbound()
  await disableAllTargets()
})
