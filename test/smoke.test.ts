import { describe, expect, it } from 'vitest'
import { call } from './helpers/http'
import { adminSession } from './helpers/principals'

describe('smoke', () => {
  it('should sign in the bootstrap admin and answer auth.me', async () => {
    const admin = await adminSession()
    const me = await call('auth.me', {}, admin)
    expect(me.status, me.text).toBe(200)
  })
})
