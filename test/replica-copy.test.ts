import { env } from 'cloudflare:workers'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { BOOKMARK_HEADER } from '../src/db/bookmark'
import { REPLICA_COPY_MS } from '../src/db/replica-copy'
import type { Env } from '../src/env'
import { domainWorld } from './domains/fixture'
import { type Caller, call, ok, send } from './helpers/http'
import { tokenFor } from './helpers/principals'

const workerEnv = env as unknown as Env
let reader: Caller
let admin: Caller
let domainId: string

beforeEach(async () => {
  const world = await domainWorld()
  admin = world.admin
  reader = await tokenFor(admin, ['domains:view'])
  ;({ domainId } = await ok<{ domainId: string }>(
    'domains.attach',
    { siteId: world.site.siteId, hostname: `www.${crypto.randomUUID().slice(0, 8)}.com`, driver: 'manual' },
    admin,
  ))
})

afterEach(() => {
  vi.useRealTimers()
})

// Another isolate's write: straight to D1, so this isolate's commits know nothing of it. Answers its bookmark.
async function remedyWrittenElsewhere(remedy: string): Promise<string> {
  const primary = workerEnv.DB.withSession('first-primary')
  await primary.prepare('update domains set failure_remedy = ? where id = ?').bind(remedy, domainId).run()
  return primary.getBookmark() as string
}

async function remedySeen(headers: Record<string, string> = {}): Promise<unknown> {
  const answer = await send('/api/rpc/domains.get', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${reader.token}`, ...headers },
    body: JSON.stringify({ id: domainId }),
  })
  expect(answer.status, answer.text).toBe(200)
  return (answer.body as { failureRemedy: unknown }).failureRemedy
}

describe("an isolate's copy of a hot read", () => {
  it(`should answer a read without a bookmark from the copy for at most ${REPLICA_COPY_MS} ms, as a lagging replica may`, async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    expect(await remedySeen()).toBeNull()
    await remedyWrittenElsewhere('written on another isolate')
    vi.advanceTimersByTime(REPLICA_COPY_MS - 1)
    expect(await remedySeen()).toBeNull()
    vi.advanceTimersByTime(1)
    expect(await remedySeen()).toBe('written on another isolate')
  })

  it('should read afresh for a caller whose bookmark is newer than the copy', async () => {
    expect(await remedySeen()).toBeNull()
    const bookmark = await remedyWrittenElsewhere('my own write')
    expect(await remedySeen({ [BOOKMARK_HEADER]: bookmark })).toBe('my own write')
  })

  it('should drop every copy when a change commits on this isolate', async () => {
    expect(await remedySeen()).toBeNull()
    await remedyWrittenElsewhere('written before a commit here')
    const unrelated = await call(
      'tokens.create',
      { name: 'any change', permissions: ['domains:view'] },
      admin,
    )
    expect(unrelated.status, unrelated.text).toBe(200)
    expect(await remedySeen()).toBe('written before a commit here')
  })
})
