import { describe, expect, it } from 'vitest'
import { parseRetryAfter } from '../../src/lib/retry-after'

describe('Retry-After parsing', () => {
  it('should read seconds and HTTP dates, and ignore anything else', () => {
    const now = Date.parse('2026-01-01T00:00:00Z')
    expect(parseRetryAfter('120', now)).toBe(120)
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:01:30 GMT', now)).toBe(90)
    expect(parseRetryAfter('Wed, 31 Dec 2025 23:00:00 GMT', now)).toBe(0)
    expect(parseRetryAfter('soon', now)).toBeUndefined()
    expect(parseRetryAfter(null, now)).toBeUndefined()
  })

  it('should cap a pause asked for at one day', () => {
    const now = Date.parse('2026-01-01T00:00:00Z')
    expect(parseRetryAfter('999999999999', now)).toBe(86_400)
    expect(parseRetryAfter('Fri, 01 Jan 2100 00:00:00 GMT', now)).toBe(86_400)
    expect(parseRetryAfter('86400', now)).toBe(86_400)
  })
})
