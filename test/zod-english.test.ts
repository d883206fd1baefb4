import { z } from '@hono/zod-openapi'
import { beforeAll, describe, expect, it } from 'vitest'
import { type Caller, call } from './helpers/http'
import { adminSession } from './helpers/principals'

interface Problem {
  code: string
  issues?: { path: string; message: string }[]
}

let admin: Caller

beforeAll(async () => {
  admin = await adminSession()
})

describe('the zod the Worker is bundled with', () => {
  it('should carry English as its only locale, in z.locales and z.core.locales', () => {
    expect(Object.keys(z.locales)).toEqual(['en'])
    expect(Object.keys(z.core.locales)).toEqual(['en'])
  })

  it("should name each refused field with zod's English message in problem+json", async () => {
    const res = await call<Problem>(
      'instances.create',
      { nodeId: 5, name: '', address: 'a'.repeat(256), color: 'blue' },
      admin,
    )
    expect(res.status, res.text).toBe(400)
    expect(res.body.code).toBe('validation_failed')
    expect(res.body.issues).toEqual([
      { path: 'nodeId', message: 'Invalid input: expected string, received number' },
      { path: 'name', message: 'Too small: expected string to have >=1 characters' },
      { path: 'address', message: 'Too big: expected string to have <=255 characters' },
      { path: 'color', message: 'unknown field' },
    ])
  })

  it('should keep its messages for formats, enums and numbers', () => {
    const messages = (schema: z.ZodType, value: unknown) =>
      schema.safeParse(value).error?.issues.map((issue) => issue.message)
    expect(messages(z.email(), 'not-an-email')).toEqual(['Invalid email address'])
    expect(messages(z.enum(['a', 'b']), 'c')).toEqual(['Invalid option: expected one of "a"|"b"'])
    expect(messages(z.number().int(), 1.5)).toEqual(['Invalid input: expected int, received number'])
    expect(messages(z.number().max(10), 11)).toEqual(['Too big: expected number to be <=10'])
  })
})
