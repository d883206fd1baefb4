import { SELF } from 'cloudflare:test'
import { beforeAll, describe, expect, it } from 'vitest'
import { createClient } from '../src/client'
import { BOOKMARK_COOKIE, BOOKMARK_HEADER } from '../src/db/bookmark'
import { type Caller, ORIGIN, send } from './helpers/http'
import { adminSession, BOOTSTRAP, tokenFor } from './helpers/principals'
import { countTrips } from './helpers/round-trips'

// Locally D1 has no replicas, but the Sessions API is the real one: a bookmark is what D1 answered, and a session
// opened at it is what the counted binding records. These tests follow the bookmark out of one call and into the
// session of the next.

const BOOKMARK = /^[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32}$/

let admin: Caller
let bearer: Caller

beforeAll(async () => {
  admin = await adminSession()
  bearer = await tokenFor(admin, ['tokens:manage', 'probes:view'])
})

function headersOf(caller: Caller, extra: Record<string, string> = {}): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...extra }
  if (caller.token) headers.authorization = `Bearer ${caller.token}`
  if (caller.cookie) {
    headers.cookie = [caller.cookie, headers.cookie].filter(Boolean).join('; ')
    headers.origin = ORIGIN
  }
  return headers
}

const post = (name: string, input: unknown, caller: Caller, extra: Record<string, string> = {}) =>
  send(`/api/rpc/${name}`, { method: 'POST', headers: headersOf(caller, extra), body: JSON.stringify(input) })

const counted = (name: string, input: unknown, caller: Caller, extra: Record<string, string> = {}) =>
  countTrips(`/api/rpc/${name}`, {
    method: 'POST',
    headers: headersOf(caller, extra),
    body: JSON.stringify(input),
  })

/** The bookmark an answer carries; fails when there is none. */
function bookmarkOf(answer: { headers: Headers; text: string }): string {
  const bookmark = answer.headers.get(BOOKMARK_HEADER)
  expect(bookmark, answer.text).toMatch(BOOKMARK)
  return bookmark as string
}

/** The bookmark cookie an answer sets, or null. */
function bookmarkCookieOf(headers: Headers): string | null {
  const cookie = headers.getSetCookie().find((value) => value.startsWith(`${BOOKMARK_COOKIE}=`))
  return cookie ?? null
}

const tokenName = () => `bookmark ${crypto.randomUUID().slice(0, 8)}`
const namesIn = (text: string) => (JSON.parse(text) as { name: string }[]).map((token) => token.name)

describe('the bookmark header', () => {
  it("should answer a write's bookmark, and start the next read at it so the read sees the write", async () => {
    const name = tokenName()
    const created = await post('tokens.create', { name, permissions: ['probes:view'] }, bearer)
    expect(created.status, created.text).toBe(200)
    const written = bookmarkOf(created)

    const read = await counted('tokens.list', {}, bearer, { [BOOKMARK_HEADER]: written })
    expect(read.status, read.text).toBe(200)
    expect(read.trips.sessions).toEqual([written])
    expect(namesIn(read.text)).toContain(name)
    expect(bookmarkOf(read) >= written).toBe(true)
  })

  it('should start a read without a bookmark anywhere, and a write on the primary whatever it carries', async () => {
    const read = await counted('tokens.list', {}, bearer)
    expect(read.trips.sessions).toEqual(['first-unconstrained'])
    const seen = bookmarkOf(read)

    const write = await counted(
      'tokens.create',
      { name: tokenName(), permissions: ['probes:view'] },
      bearer,
      {
        [BOOKMARK_HEADER]: seen,
      },
    )
    expect(write.status, write.text).toBe(200)
    expect(write.trips.sessions).toEqual(['first-primary'])
    expect(bookmarkOf(write) > seen).toBe(true)
  })

  it('should hand back the bookmark it was sent when the call read nothing, and none when it was sent none', async () => {
    const { headers } = await post('tokens.list', {}, bearer)
    const held = headers.get(BOOKMARK_HEADER) as string
    const version = await send('/api/v1/meta/version', { headers: { [BOOKMARK_HEADER]: held } })
    expect(version.status).toBe(200)
    expect(version.headers.get(BOOKMARK_HEADER)).toBe(held)
    expect((await send('/api/v1/meta/version')).headers.get(BOOKMARK_HEADER)).toBeNull()
  })

  it('should accept a bookmark in capitals as the same bookmark', async () => {
    const { headers } = await post('tokens.list', {}, bearer)
    const held = headers.get(BOOKMARK_HEADER) as string
    const read = await counted('tokens.list', {}, bearer, { [BOOKMARK_HEADER]: held.toUpperCase() })
    expect(read.status, read.text).toBe(200)
    expect(read.trips.sessions).toEqual([held])
  })

  it('should refuse a malformed bookmark with a 400 naming the header, before reading or writing anything', async () => {
    const { headers } = await post('tokens.list', {}, bearer)
    const held = headers.get(BOOKMARK_HEADER) as string
    const name = tokenName()
    for (const malformed of [
      'first-primary',
      'garbage',
      `${held}0`,
      held.slice(1),
      `${held.slice(0, -1)}g`,
    ]) {
      const write = await counted('tokens.create', { name, permissions: ['probes:view'] }, bearer, {
        [BOOKMARK_HEADER]: malformed,
      })
      expect(write.status, malformed).toBe(400)
      expect(write.headers.get('content-type')).toBe('application/problem+json')
      expect(JSON.parse(write.text)).toMatchObject({
        code: 'validation_failed',
        issues: [{ path: BOOKMARK_HEADER }],
      })
      expect(write.trips).toMatchObject({ d1: 0, sessions: [] })
    }
    const refused = await post('tokens.list', {}, bearer, { [BOOKMARK_HEADER]: 'garbage' })
    expect(refused.status).toBe(400)
    expect(refused.body).toMatchObject({
      code: 'validation_failed',
      detail: expect.stringContaining(BOOKMARK_HEADER),
    })
    const listed = await post('tokens.list', {}, bearer)
    expect(namesIn(listed.text)).not.toContain(name)
  })
})

describe('the bookmark in the OpenAPI document', () => {
  it('should list the header both ways on every procedure operation, and on none of the other routes', async () => {
    const doc = (await send('/api/v1/openapi.json')).body as {
      paths: Record<
        string,
        Record<
          string,
          {
            'x-procedure'?: string
            parameters?: { in: string; name: string }[]
            responses: Record<string, { headers?: Record<string, unknown> }>
          }
        >
      >
    }
    const operations = Object.values(doc.paths).flatMap((methods) => Object.values(methods))
    const procedures = operations.filter((op) => op['x-procedure'])
    expect(procedures.length).toBeGreaterThan(100)
    for (const op of procedures) {
      expect(op.parameters).toContainEqual(expect.objectContaining({ in: 'header', name: BOOKMARK_HEADER }))
      for (const response of Object.values(op.responses))
        expect(response.headers, op['x-procedure']).toHaveProperty([BOOKMARK_HEADER])
    }
    for (const op of operations.filter((op) => !op['x-procedure']))
      expect(op.parameters ?? []).not.toContainEqual(expect.objectContaining({ name: BOOKMARK_HEADER }))
  })
})

describe('the bookmark cookie of the pages', () => {
  async function signIn(): Promise<{ cookie: string; bookmark: string }> {
    const answer = await post('auth.login', BOOTSTRAP, { origin: null })
    expect(answer.status, answer.text).toBe(200)
    const session = answer.headers.getSetCookie().find((value) => value.startsWith('__Host-panel_session='))
    const bookmark = bookmarkCookieOf(answer.headers)
    expect(bookmark).toBe(`${BOOKMARK_COOKIE}=${bookmarkOf(answer)}; Path=/; HttpOnly; Secure; SameSite=Lax`)
    return { cookie: session?.split(';')[0] ?? '', bookmark: bookmarkOf(answer) }
  }

  it('should set the cookie at sign-in, so the first page read starts at the new session row', async () => {
    const { cookie, bookmark } = await signIn()
    const me = await counted('auth.me', {}, { cookie }, { cookie: `${BOOKMARK_COOKIE}=${bookmark}` })
    expect(me.status, me.text).toBe(200)
    expect(me.trips.sessions).toEqual([bookmark])
    expect(bookmarkOf(me) >= bookmark).toBe(true)
  })

  it("should move the cookie to a signed-in write's bookmark", async () => {
    const { cookie, bookmark } = await signIn()
    const created = await post(
      'tokens.create',
      { name: tokenName(), permissions: ['probes:view'] },
      { cookie },
      { cookie: `${BOOKMARK_COOKIE}=${bookmark}` },
    )
    expect(created.status, created.text).toBe(200)
    const written = bookmarkOf(created)
    expect(written > bookmark).toBe(true)
    expect(bookmarkCookieOf(created.headers)).toBe(
      `${BOOKMARK_COOKIE}=${written}; Path=/; HttpOnly; Secure; SameSite=Lax`,
    )
  })

  it('should start from the newer of the header and the cookie', async () => {
    const { cookie, bookmark: older } = await signIn()
    const newer = bookmarkOf(
      await post('tokens.create', { name: tokenName(), permissions: ['probes:view'] }, bearer),
    )
    const both = { cookie: `${BOOKMARK_COOKIE}=${older}`, [BOOKMARK_HEADER]: newer }
    expect((await counted('auth.me', {}, { cookie }, both)).trips.sessions).toEqual([newer])
    const swapped = { cookie: `${BOOKMARK_COOKIE}=${newer}`, [BOOKMARK_HEADER]: older }
    expect((await counted('auth.me', {}, { cookie }, swapped)).trips.sessions).toEqual([newer])
  })

  it('should ignore a malformed cookie and replace it, since a browser cannot mend it', async () => {
    const { cookie } = await signIn()
    const me = await counted('auth.me', {}, { cookie }, { cookie: `${BOOKMARK_COOKIE}=not-a-bookmark` })
    expect(me.status, me.text).toBe(200)
    expect(me.trips.sessions).toEqual(['first-unconstrained'])
    expect(bookmarkCookieOf(me.headers)).toBe(
      `${BOOKMARK_COOKIE}=${bookmarkOf(me)}; Path=/; HttpOnly; Secure; SameSite=Lax`,
    )
  })

  it('should set no cookie for a token, nor on a public answer a signed-in browser reads', async () => {
    const read = await post('tokens.list', {}, bearer)
    expect(bookmarkOf(read)).toMatch(BOOKMARK)
    expect(bookmarkCookieOf(read.headers)).toBeNull()
    const { cookie } = await signIn()
    const feed = await send('/api/v1/meta/changelog', { headers: { cookie } })
    expect(feed.status).toBe(200)
    expect(feed.headers.getSetCookie()).toEqual([])
  })
})

describe('the typed client', () => {
  it('should send the newest bookmark it was answered on every later call, so it reads its own writes', async () => {
    const sent: (string | undefined)[] = []
    const client = createClient({
      baseUrl: ORIGIN,
      token: bearer.token,
      fetch: async (input, init) => {
        sent.push(init.headers[BOOKMARK_HEADER])
        return SELF.fetch(input, init)
      },
    })
    const name = tokenName()
    await client.tokens.list({})
    const created = await client.tokens.create({ name, permissions: ['probes:view'] })
    const listed = await client.tokens.list({})
    expect(listed.map((token) => token.id)).toContain(created.id)

    expect(sent[0]).toBeUndefined()
    expect(sent[1]).toMatch(BOOKMARK)
    expect(sent[2]).toMatch(BOOKMARK)
    expect((sent[2] as string) > (sent[1] as string)).toBe(true)

    // An error answer carries a bookmark too, and the client keeps the newest one it saw.
    const error = await client.probes.get({ id: crypto.randomUUID() }).catch((e: unknown) => e)
    expect(error).toMatchObject({ status: 404 })
    await client.tokens.list({})
    expect((sent[4] as string) >= (sent[2] as string)).toBe(true)
  })
})
