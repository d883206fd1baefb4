import { describe, expect, it } from 'vitest'
import { timingSafeEqual } from '../src/lib/hash'

describe('timingSafeEqual', () => {
  it('should be true only for the same string', () => {
    const digest = `${'a'.repeat(63)}b`
    expect(timingSafeEqual(digest, digest)).toBe(true)
    expect(timingSafeEqual('', '')).toBe(true)
    expect(timingSafeEqual(digest, `${'a'.repeat(63)}c`)).toBe(false)
    expect(timingSafeEqual(`c${digest.slice(1)}`, digest)).toBe(false)
  })

  it('should be false when one string is the other with more after it, either way round', () => {
    expect(timingSafeEqual('abc', 'abc\u0000')).toBe(false)
    expect(timingSafeEqual('abc\u0000', 'abc')).toBe(false)
    expect(timingSafeEqual('', 'a')).toBe(false)
  })

  it('should compare characters outside ASCII by what they are', () => {
    expect(timingSafeEqual('é', 'é')).toBe(true)
    expect(timingSafeEqual('é', 'e')).toBe(false)
    expect(timingSafeEqual('\u{1F600}', '\u{1F601}')).toBe(false)
  })
})
