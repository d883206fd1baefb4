import { describe, expect, it } from 'vitest'
import { admin, runCron, state, UPSTREAM } from './helpers/changelog-mirror'
import { call } from './helpers/http'
import { outboundRequests } from './helpers/outbound'
import { operatorSession } from './helpers/principals'

describe('changelog mirror', () => {
  it('should make no outbound request at all while no upstream is set', async () => {
    expect(await state()).toEqual({ upstream: null, lastPulledAt: null, lastStatus: null, lastError: null })
    await runCron()
    const res = await call('changelog.mirror.pull', {}, admin)
    expect(res.status, res.text).toBe(409)
    expect(outboundRequests()).toHaveLength(0)
    expect(await state()).toEqual({ upstream: null, lastPulledAt: null, lastStatus: null, lastError: null })
  })

  it('should refuse an upstream URL the panel must not fetch in production', async () => {
    for (const url of [
      'http://upstream.example.test/feed',
      'https://127.0.0.1/feed',
      'https://192.168.1.10/feed',
    ]) {
      const res = await call<{ issues?: { path: string }[] }>(
        'changelog.mirror.set',
        { upstream: url },
        admin,
      )
      expect(res.status, `${url}: ${res.text}`).toBe(400)
      expect(res.body.issues?.map((i) => i.path)).toEqual(['upstream'])
    }
  })

  it('should let settings:view read the mirror and only settings:edit change or pull it', async () => {
    const operator = await operatorSession(admin)
    expect((await call('changelog.mirror.get', {}, operator)).status).toBe(200)
    expect((await call('changelog.mirror.set', { upstream: UPSTREAM }, operator)).status).toBe(403)
    expect((await call('changelog.mirror.pull', {}, operator)).status).toBe(403)
  })
})
