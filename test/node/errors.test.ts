import { describe, expect, it } from 'vitest'
import { serviceSignature, verifyServiceSignature } from '../../src/lib/service-signature'
import { toAppError } from '../../src/rpc/problem-response'

describe('toAppError', () => {
  it('should turn a lost race on a unique index into 409 conflict without internals', () => {
    const error = toAppError(new Error('D1_ERROR: UNIQUE constraint failed: nodes.name: SQLITE_CONSTRAINT'))
    expect(error.code).toBe('conflict')
    expect(error.detail).not.toContain('nodes.name')
  })

  it('should hide anything else behind a generic internal error', () => {
    const error = toAppError(new TypeError("Cannot read properties of undefined (reading 'id')"))
    expect(error.code).toBe('internal')
    expect(error.detail).not.toMatch(/undefined|reading|properties/)
  })
})

describe('verifyServiceSignature', () => {
  it('should check the timestamp header text exactly as the sender signed it', async () => {
    const body = '{"event":"changelog.published"}'
    const now = 1_767_225_600_000
    const padded = `0${now}`
    const headers = {
      'x-service-timestamp': padded,
      'x-service-signature': await serviceSignature('s3cret', padded, body),
    }
    expect(await verifyServiceSignature(body, headers, 's3cret', now)).toEqual({ ok: true })
    const renumbered = { ...headers, 'x-service-signature': await serviceSignature('s3cret', now, body) }
    expect((await verifyServiceSignature(body, renumbered, 's3cret', now)).ok).toBe(false)
  })
})
