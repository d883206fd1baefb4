import { type Schema, Validator } from '@cfworker/json-schema'
import { validate } from '@readme/openapi-parser'
import { describe, expect, it } from 'vitest'
import { createApp } from '../../src/app'
import { procedures } from '../../src/rpc/registry'

async function document() {
  const response = await createApp().request(
    'https://panel.test/api/v1/openapi.json',
    {},
    { IMAGE_TAG: 'test' },
  )
  expect(response.status).toBe(200)
  return (await response.json()) as {
    openapi: string
    paths: Record<
      string,
      Record<
        string,
        {
          operationId: string
          'x-permission': string
          description: string
          responses: Record<string, unknown>
        }
      >
    >
    components: { securitySchemes: Record<string, unknown> }
  }
}

describe('OpenAPI document', () => {
  it('should be a valid OpenAPI 3.1 document', async () => {
    const doc = await document()
    expect(doc.openapi).toBe('3.1.0')
    const result = await validate(structuredClone(doc) as never)
    expect(result.valid, JSON.stringify(result)).toBe(true)
    // The validator must be able to say no: the same document with a dangling reference fails.
    const broken = structuredClone(doc) as { components: { schemas?: Record<string, unknown> } }
    broken.components.schemas = { Dangling: { $ref: '#/components/schemas/DoesNotExist' } }
    const refused = await validate(broken as never)
    expect(refused.valid).toBe(false)
  })

  it('should list every procedure of the registry with its permission and error responses', async () => {
    const doc = await document()
    const operations = Object.values(doc.paths).flatMap((methods) => Object.values(methods))
    for (const [name, proc] of procedures) {
      const op = operations.find((o) => o.operationId === name)
      expect(op, `${name} is missing from the document`).toBeDefined()
      expect(op?.['x-permission']).toBe(proc.permission)
      expect(op?.description).toContain(String(proc.permission === 'public' ? 'public' : proc.permission))
      expect(Object.keys(op?.responses ?? {})).toEqual(expect.arrayContaining(['200', '400']))
      if (proc.permission !== 'public')
        expect(Object.keys(op?.responses ?? {})).toEqual(expect.arrayContaining(['401', '403']))
    }
  })

  it('should hold only patterns that are ECMA-262 regexes without flags', async () => {
    const patterns: string[] = []
    const collect = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(collect)
      else if (typeof node === 'object' && node !== null) {
        for (const [key, value] of Object.entries(node)) {
          if (key === 'pattern' && typeof value === 'string') patterns.push(value)
          else collect(value)
        }
      }
    }
    collect(await document())
    expect(patterns.length).toBeGreaterThan(0)
    for (const pattern of patterns) {
      // Validators compile patterns as unicode regexes; a JS literal's flags (`…$/i`) must not leak in.
      expect(() => new RegExp(pattern, 'u'), pattern).not.toThrow()
      expect(pattern, 'a regex flag leaked into the pattern').not.toMatch(/(?<!\\)\/[dgimsuvy]*$/)
    }
  })

  it('should say a nullable reference as anyOf [$ref, null], never as an allOf that cannot be null', async () => {
    const text = JSON.stringify(await document())
    expect(text).not.toMatch(/"allOf":\[\{"\$ref":"[^"]+"\},\{"type":\[[^\]]*"null"/)
    const doc = (await document()) as unknown as {
      components: { schemas: Record<string, { properties?: Record<string, unknown> }> }
    }
    const schemas = doc.components.schemas
    expect(schemas.ResolvedAccount?.properties?.account).toEqual({
      anyOf: [{ $ref: '#/components/schemas/AccountRow' }, { type: 'null' }],
    })
  })

  it('should write tuples that validators without prefixItems (Prism 5) read the same way', async () => {
    const doc = (await document()) as unknown as {
      paths: Record<string, { post: { requestBody: { content: Record<string, { schema: Schema }> } } }>
      components: { schemas: Record<string, Schema> }
    }
    const schema = doc.paths['/api/v1/nodes/create']?.post.requestBody.content['application/json']?.schema
    const node = (roles: unknown) => ({
      name: 'n',
      roles,
      agentUrl: 'https://agent.panel.test',
      agentSecret: 'node-agent-secret-0123',
    })
    const validator = (root: unknown) =>
      new Validator({ ...(root as Schema), components: doc.components } as Schema, '2020-12', false)
    // Prism 5 does not know prefixItems and applies `items` to every element: it must still accept each role.
    const withoutPrefixItems = JSON.parse(JSON.stringify(schema), (key, value) =>
      key === 'prefixItems' ? undefined : value,
    )
    for (const roles of [['host'], ['nameserver']]) {
      expect(validator(withoutPrefixItems).validate(node(roles)).valid, String(roles)).toBe(true)
      expect(validator(schema).validate(node(roles)).valid, String(roles)).toBe(true)
    }
    for (const roles of [['host', 'nameserver'], [], ['host', 42], ['other']]) {
      expect(validator(schema).validate(node(roles)).valid, JSON.stringify(roles)).toBe(false)
    }
  })

  it('should describe a stream as text that answer-validating proxies (Prism) accept, each event by contentSchema', async () => {
    const doc = (await document()) as unknown as {
      paths: Record<
        string,
        Record<string, { responses: Record<string, { content?: Record<string, { schema: Schema }> }> }>
      >
      components: { schemas: Record<string, Schema> }
    }
    const streams = Object.values(doc.paths).flatMap((methods) =>
      Object.values(methods).flatMap(
        (op) => op.responses['200']?.content?.['text/event-stream']?.schema ?? [],
      ),
    )
    expect(streams).toHaveLength(3)
    const validator = (schema: Schema) =>
      new Validator({ ...schema, components: doc.components } as Schema, '2020-12', false)
    const event = {
      id: 'p1',
      name: 'shop',
      state: 'down',
      enabled: true,
      lastChangedAt: '2026-11-26T12:00:00.000Z',
    }
    const text = `retry: 2000\n\nid: 3\ndata: ${JSON.stringify(event)}\n\n`
    for (const schema of streams) {
      // Prism reads a text/event-stream body as a string and validates it against the schema.
      expect(validator(schema).validate(text).valid).toBe(true)
      const { contentSchema } = schema as { contentSchema: Schema }
      expect(validator(contentSchema).validate(event).valid).toBe(true)
      expect(validator(contentSchema).validate({ kind: 'change', rows: [event] }).valid).toBe(false)
    }
  })

  it('should declare the bearer and cookie security schemes', async () => {
    const doc = await document()
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['bearerAuth', 'sessionCookie'])
  })
})
