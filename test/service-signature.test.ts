import { describe, expect, it } from 'vitest'
import { verifyServiceSignature } from '../src/client'
import { signatureHeaders } from '../src/lib/service-signature'

const SECRET = 'receiver-secret-0123456789'
const BODY = '{"event":"changelog.published"}'

describe('verifyServiceSignature', () => {
  it('should accept a body signed with the secret, from Headers or a plain object', async () => {
    const signed = await signatureHeaders(SECRET, BODY)
    expect(await verifyServiceSignature(BODY, new Headers(signed), SECRET)).toEqual({ ok: true })
    expect(await verifyServiceSignature(BODY, signed, SECRET)).toEqual({ ok: true })
  })

  // Receivers written in plain JavaScript pass whatever their framework gives them.
  const loose = verifyServiceSignature as (
    rawBody: unknown,
    headers: unknown,
    secret: unknown,
    now?: number,
  ) => ReturnType<typeof verifyServiceSignature>

  it.each([
    ['an empty secret', ''],
    ['an undefined secret', undefined],
    ['a null secret', null],
    ['a secret that is not a string', 42],
  ])('should return a failure, not throw, on %s', async (_what, secret) => {
    const signed = await signatureHeaders(SECRET, BODY)
    const verdict = await loose(BODY, signed, secret)
    expect(verdict.ok).toBe(false)
    expect(verdict).toHaveProperty('reason', expect.stringMatching(/secret/))
  })

  it.each([
    ['null headers', null],
    ['undefined headers', undefined],
    ['headers that are a string', 'x-service-signature: sha256=00'],
    ['header values that are arrays', { 'x-service-signature': ['sha256=00'], 'x-service-timestamp': ['1'] }],
  ])('should return a failure, not throw, on %s', async (_what, headers) => {
    const verdict = await loose(BODY, headers, SECRET)
    expect(verdict.ok).toBe(false)
  })

  it('should refuse a body signed with another secret', async () => {
    const signed = await signatureHeaders('another-secret-0123456789', BODY)
    expect(await verifyServiceSignature(BODY, signed, SECRET)).toEqual({
      ok: false,
      reason: 'the signature does not match',
    })
  })
})
