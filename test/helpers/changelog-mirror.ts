import { createExecutionContext, createScheduledController, waitOnExecutionContext } from 'cloudflare:test'
import { beforeAll, beforeEach, expect } from 'vitest'
import { mirrorPullTask } from '../../src/changelog/mirror-cron'
import type { Env } from '../../src/env'
import worker from '../../src/index'
import type { JobMessage } from '../../src/jobs/messages'
import { captureJobs, workerEnv } from './changelog'
import { type Caller, ok, send } from './http'
import { fakeOrigin, interceptOutbound } from './outbound'
import { adminSession } from './principals'

// For test/changelog-mirror-*.test.ts. Importing this module registers their hooks: an admin session and the
// captured JOBS queue once, outbound interception before each test.

export interface MirrorState {
  upstream: string | null
  lastPulledAt: string | null
  lastStatus: 'ok' | 'unchanged' | 'failed' | null
  lastError: string | null
}
export interface PullResult extends MirrorState {
  added: number
  updated: number
  removed: number
  skipped: string[]
}
export interface FeedRelease {
  version: string
  title: string
  date: string
  summary: string | null
  items: { category: string; text: string }[]
  i18n?: Record<string, unknown>
}

export const UPSTREAM_ORIGIN = 'https://upstream.example.test'
export const UPSTREAM = `${UPSTREAM_ORIGIN}/api/v1/meta/changelog`
export let admin: Caller
export let jobs: ReturnType<typeof captureJobs>

/** The upstream panel: serves `document` with an ETag and answers 304 when the panel sends it back. */
export function upstream(
  document: unknown,
  etag = `"${crypto.randomUUID()}"`,
): { etag: string; hits: Request[] } {
  const hits: Request[] = []
  fakeOrigin(UPSTREAM_ORIGIN, (request) => {
    hits.push(request)
    if (request.headers.get('if-none-match') === etag)
      return new Response(null, { status: 304, headers: { etag } })
    const body = typeof document === 'string' ? document : JSON.stringify(document)
    return new Response(body, { headers: { 'content-type': 'application/json', etag } })
  })
  return { etag, hits }
}

export function release(version: string, date: string, extra: Record<string, unknown> = {}) {
  return {
    version,
    title: `Upstream ${version}`,
    date,
    severity: 'minor',
    summary: `Summary of ${version}.`,
    items: [{ category: 'new', text: `Item of ${version}.` }],
    ...extra,
  }
}

export async function runCron(): Promise<void> {
  const ctx = createExecutionContext()
  const handler: ExportedHandler<Env, JobMessage> = worker
  await handler.scheduled?.(createScheduledController({ cron: mirrorPullTask.schedule }), workerEnv, ctx)
  await waitOnExecutionContext(ctx)
}

export async function feedReleases(): Promise<FeedRelease[]> {
  const res = await send('/api/v1/meta/changelog')
  expect(res.status, res.text).toBe(200)
  return (res.body as { releases: FeedRelease[] }).releases
}

/** A body of `bytes` spaces served in 64 KiB chunks, recording how much was read and whether the reader gave up. */
export function streamedBody(bytes: number) {
  const chunk = new Uint8Array(64 * 1024).fill(0x20)
  const progress = { served: 0, cancelled: false }
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (progress.served >= bytes) return controller.close()
      progress.served += chunk.byteLength
      controller.enqueue(chunk)
    },
    cancel() {
      progress.cancelled = true
    },
  })
  return { body, progress }
}

export async function latestPullAudit(): Promise<
  { outcome: string; detail: Record<string, unknown> } | undefined
> {
  const audit = await ok<{ entries: { outcome: string; detail: Record<string, unknown> }[] }>(
    'audit.list',
    { action: 'changelog.mirror-pull', limit: 1 },
    admin,
  )
  return audit.entries[0]
}

export const pull = () => ok<PullResult>('changelog.mirror.pull', {}, admin)
export const state = () => ok<MirrorState>('changelog.mirror.get', {}, admin)

beforeAll(async () => {
  admin = await adminSession()
  jobs = captureJobs()
})

beforeEach(() => {
  interceptOutbound()
})
