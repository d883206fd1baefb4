import { describe, expect, it } from 'vitest'
import { verifyServiceSignature } from '../src/client'
import { independentSignature } from './helpers/service-signature'

describe('verifyServiceSignature (client entry)', () => {
  const body = '{"event":"changelog.published","release":{"version":"1.0.0","title":"Hello"}}'
  const timestamp = 1767225600000
  // Computed with node's crypto: createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex').
  const vector = 'sha256=1d884ae06018fa6e57f449f0c13c27cf0d9e4887aa643a0e0b08228eb971277e'
  const secret = 'whsec_changelog_vector_secret'
  const headers = { 'x-service-timestamp': String(timestamp), 'x-service-signature': vector }

  it('should accept the independently computed vector', async () => {
    expect(await verifyServiceSignature(body, headers, secret, timestamp)).toEqual({ ok: true })
    expect(await independentSignature(secret, String(timestamp), body)).toBe(vector)
  })

  it('should accept Headers and any header-name case', async () => {
    expect(await verifyServiceSignature(body, new Headers(headers), secret, timestamp)).toEqual({ ok: true })
    const shouting = { 'X-Service-Timestamp': String(timestamp), 'X-Service-Signature': vector }
    expect(await verifyServiceSignature(body, shouting, secret, timestamp)).toEqual({ ok: true })
  })

  it('should reject a changed body, a wrong secret or a changed signature', async () => {
    expect((await verifyServiceSignature(`${body} `, headers, secret, timestamp)).ok).toBe(false)
    expect((await verifyServiceSignature(body, headers, 'another-secret', timestamp)).ok).toBe(false)
    const flipped = `${vector.slice(0, -1)}${vector.endsWith('e') ? 'f' : 'e'}`
    expect(
      (await verifyServiceSignature(body, { ...headers, 'x-service-signature': flipped }, secret, timestamp))
        .ok,
    ).toBe(false)
    const bare = vector.replace('sha256=', '')
    expect(
      (await verifyServiceSignature(body, { ...headers, 'x-service-signature': bare }, secret, timestamp)).ok,
    ).toBe(false)
  })

  it('should reject missing headers and a timestamp that is not a millisecond number', async () => {
    expect(
      await verifyServiceSignature(body, { 'x-service-signature': vector }, secret, timestamp),
    ).toMatchObject({ ok: false })
    expect(
      await verifyServiceSignature(body, { 'x-service-timestamp': String(timestamp) }, secret, timestamp),
    ).toMatchObject({
      ok: false,
    })
    const iso = { ...headers, 'x-service-timestamp': new Date(timestamp).toISOString() }
    expect((await verifyServiceSignature(body, iso, secret, timestamp)).ok).toBe(false)
  })

  it('should accept up to 5 minutes of clock difference either way, and no more', async () => {
    const fiveMinutes = 5 * 60 * 1000
    expect((await verifyServiceSignature(body, headers, secret, timestamp + fiveMinutes)).ok).toBe(true)
    expect((await verifyServiceSignature(body, headers, secret, timestamp - fiveMinutes)).ok).toBe(true)
    expect((await verifyServiceSignature(body, headers, secret, timestamp + fiveMinutes + 1)).ok).toBe(false)
    expect((await verifyServiceSignature(body, headers, secret, timestamp - fiveMinutes - 1)).ok).toBe(false)
  })
})
