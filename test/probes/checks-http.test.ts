import { env } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import type { Env } from '../../src/env'
import { runCheck } from '../../src/probes/checks/run-check'
import { type HttpConfig, HttpConfigSchema } from '../../src/probes/config'
import { fakeOrigin, outboundRequests } from '../helpers/outbound'

// http checks go through fetchOutbound (deadline, the outbound rule at send time, no redirects followed by
// fetch itself) against fakes on public https origins, with the Worker in production.

const workerEnv = env as unknown as Env
const SITE = 'https://status.example.test'
const OTHER = 'https://login.example.test'

function check(target: string, config: Partial<HttpConfig> = {}) {
  const probe = {
    id: 'probe-http',
    type: 'http' as const,
    targetKind: 'external' as const,
    targetId: null,
    target,
    config: HttpConfigSchema.parse(config),
  }
  return runCheck(workerEnv, probe, 'probe-http:1')
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('http check', () => {
  it('should be up on a status inside the expected range, with the check id and a latency', async () => {
    fakeOrigin(SITE, () => new Response('ok'))
    const result = await check(`${SITE}/health`)
    expect(result).toMatchObject({ checkId: 'probe-http:1', outcome: 'up', detail: 'HTTP 200' })
    expect(result.latencyMs).toBeGreaterThanOrEqual(0)
    expect(Math.abs(result.at - Date.now())).toBeLessThan(5000)
    expect(outboundRequests().map((request) => [request.method, request.url])).toEqual([
      ['GET', `${SITE}/health`],
    ])
  })

  it('should be down on a status outside the range, naming the range', async () => {
    fakeOrigin(SITE, () => new Response('busy', { status: 503 }))
    expect(await check(SITE)).toMatchObject({ outcome: 'down', detail: 'HTTP 503 (expected 200–399)' })
    fakeOrigin(SITE, () => new Response(null, { status: 204 }))
    expect(await check(SITE, { expectedStatus: { min: 200, max: 200 } })).toMatchObject({
      outcome: 'down',
      detail: 'HTTP 204 (expected 200)',
    })
  })

  it('should send the configured method', async () => {
    fakeOrigin(SITE, (request) => new Response(null, { status: request.method === 'HEAD' ? 200 : 405 }))
    expect(await check(SITE, { method: 'HEAD' })).toMatchObject({ outcome: 'up', detail: 'HTTP 200' })
  })

  it('should look for the keyword in the first 64 KB of the body only', async () => {
    const filler = 'x'.repeat(64 * 1024)
    fakeOrigin(SITE, (request) => {
      const path = new URL(request.url).pathname
      // A declared length past the window must not stop the window from being read.
      if (path === '/early') {
        const body = `status: healthy ${filler}`
        return new Response(body, { headers: { 'content-length': String(body.length) } })
      }
      if (path === '/late') return new Response(`${filler} healthy`)
      return new Response('status: degraded')
    })
    expect(await check(`${SITE}/early`, { keyword: 'healthy' })).toMatchObject({
      outcome: 'up',
      detail: 'HTTP 200',
    })
    const missing = 'HTTP 200, but "healthy" is not in the first 64 KB of the body'
    expect(await check(`${SITE}/late`, { keyword: 'healthy' })).toMatchObject({
      outcome: 'down',
      detail: missing,
    })
    expect(await check(`${SITE}/other`, { keyword: 'healthy' })).toMatchObject({
      outcome: 'down',
      detail: missing,
    })
  })

  it('should be degraded when the answer is slower than slowMs', async () => {
    fakeOrigin(SITE, async () => {
      await wait(120)
      return new Response('ok')
    })
    const slow = await check(SITE, { slowMs: 50 })
    expect(slow.outcome).toBe('degraded')
    expect(slow.detail).toMatch(/^HTTP 200 in \d+ ms \(slow above 50 ms\)$/)
    expect(slow.latencyMs).toBeGreaterThanOrEqual(100)
    expect(await check(SITE, { slowMs: 5000 })).toMatchObject({ outcome: 'up', detail: 'HTTP 200' })
  })

  it('should judge a redirect as it is by default, without following it', async () => {
    fakeOrigin(SITE, () => new Response(null, { status: 302, headers: { location: `${OTHER}/sign-in` } }))
    fakeOrigin(OTHER, () => new Response('sign in'))
    expect(await check(SITE)).toMatchObject({ outcome: 'up', detail: 'HTTP 302' })
    expect(await check(SITE, { expectedStatus: { min: 200, max: 299 } })).toMatchObject({
      outcome: 'down',
      detail: 'HTTP 302 (expected 200–299)',
    })
    expect(outboundRequests().map((request) => request.url)).toEqual([`${SITE}/`, `${SITE}/`])
  })

  it('should follow up to 5 redirects when configured, each through the outbound rule', async () => {
    fakeOrigin(SITE, (request) => {
      const hop = Number(new URL(request.url).searchParams.get('hop') ?? 0)
      if (new URL(request.url).pathname === '/loop')
        return new Response(null, { status: 302, headers: { location: `/loop?hop=${hop + 1}` } })
      if (new URL(request.url).pathname === '/plain')
        return new Response(null, { status: 301, headers: { location: 'http://login.example.test/' } })
      return new Response(null, { status: 303, headers: { location: `${OTHER}/sign-in` } })
    })
    fakeOrigin(OTHER, (request) => new Response(request.method, { status: 200 }))

    expect(await check(`${SITE}/start`, { followRedirects: true, method: 'POST' })).toMatchObject({
      outcome: 'up',
      detail: 'HTTP 200 after 1 redirect',
    })
    expect(outboundRequests().map((request) => [request.method, request.url])).toEqual([
      ['POST', `${SITE}/start`],
      ['GET', `${OTHER}/sign-in`],
    ])

    expect(await check(`${SITE}/loop`, { followRedirects: true })).toMatchObject({
      outcome: 'down',
      detail: 'more than 5 redirects',
    })
    expect(outboundRequests().filter((request) => request.url.includes('/loop'))).toHaveLength(6)

    const plain = await check(`${SITE}/plain`, { followRedirects: true })
    expect(plain.outcome).toBe('down')
    expect(plain.detail).toBe(
      'redirect 1: refused by the outbound rule: the URL must use https in production',
    )
  })

  it('should be down when no answer comes within timeoutMs', async () => {
    fakeOrigin(
      SITE,
      (request) =>
        new Promise<Response>((_, reject) => {
          request.signal.addEventListener('abort', () => reject(request.signal.reason))
        }),
    )
    const started = Date.now()
    const result = await check(SITE, { timeoutMs: 500 })
    expect(result).toMatchObject({ outcome: 'down', detail: 'no answer within 500 ms' })
    expect(Date.now() - started).toBeLessThan(3000)
  })

  it('should be down with the reason when the request fails', async () => {
    fakeOrigin(SITE, () => {
      throw new TypeError('connection reset by peer')
    })
    expect(await check(SITE)).toMatchObject({
      outcome: 'down',
      detail: 'request failed: connection reset by peer',
      latencyMs: null,
    })
  })

  it('should be down, naming the rule, when production refuses the target at send time', async () => {
    expect(await check('http://status.example.test/')).toMatchObject({
      outcome: 'down',
      detail: 'refused by the outbound rule: the URL must use https in production',
      latencyMs: null,
    })
    expect(outboundRequests()).toHaveLength(0)
  })
})
