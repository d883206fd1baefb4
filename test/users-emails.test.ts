import { beforeAll, describe, expect, it } from 'vitest'
import { type Caller, call, ok, send } from './helpers/http'
import { adminSession } from './helpers/principals'

let admin: Caller

beforeAll(async () => {
  admin = await adminSession()
})

const REFUSED = [
  '<img/src=x/onerror=alert(1)>@example.com',
  'nul\u0000byte@example.com',
  'bidi\u202Eoverride@example.com',
  'zero\u200Bwidth@example.com',
  'joiner\u200D@example.com',
  'quote"d@example.com',
  'a@exa\u200Bmple.com',
]

interface JsonSchema {
  $ref?: string
  pattern?: string
  properties?: Record<string, JsonSchema>
}

/** The email pattern of auth.login's request body, as the OpenAPI document publishes it. */
async function publishedEmailPattern(): Promise<string> {
  const doc = (await send('/api/v1/openapi.json')).body as {
    paths: Record<string, { post?: { requestBody?: { content: Record<string, { schema: JsonSchema }> } } }>
    components: { schemas: Record<string, JsonSchema> }
  }
  let schema = doc.paths['/api/v1/auth/login']?.post?.requestBody?.content['application/json']?.schema
  if (schema?.$ref) schema = doc.components.schemas[schema.$ref.split('/').pop() ?? '']
  const pattern = schema?.properties?.email?.pattern
  if (!pattern) throw new Error('auth.login publishes no email pattern')
  return pattern
}

describe('email addresses', () => {
  it.each(REFUSED)('should refuse %j with 400 naming email, creating nothing', async (email) => {
    const res = await call<{ issues: { path: string }[] }>(
      'users.create',
      { email, password: 'some-password-123', role: 'operator' },
      admin,
    )
    expect(res.status, res.text).toBe(400)
    expect(res.body.issues.map((i) => i.path)).toEqual(['email'])
  })

  it('should accept mixed case, store it lowercased and sign in with either case', async () => {
    const created = await ok<{ email: string }>(
      'users.create',
      { email: "O'Brien+Ops@Example.COM", password: 'mixed-case-password', role: 'operator' },
      admin,
    )
    expect(created.email).toBe("o'brien+ops@example.com")
    const login = await call('auth.login', {
      email: "O'BRIEN+ops@example.com",
      password: 'mixed-case-password',
    })
    expect(login.status, login.text).toBe(200)
  })

  it('should publish a flag-free pattern that third-party validators apply the same way', async () => {
    const pattern = new RegExp(await publishedEmailPattern(), 'u')
    expect(pattern.test('Admin@Panel.Test')).toBe(true)
    expect(pattern.test('admin@localhost')).toBe(true)
    for (const email of REFUSED) expect(pattern.test(email), email).toBe(false)
  })
})
