import { describe, expect, it } from 'vitest'
import { createApp } from '../../src/app'
import { type Document, unboundedRequestStrings, unboundedStrings } from '../helpers/bounded-strings'

async function document(): Promise<Document> {
  const response = await createApp().request(
    'https://panel.test/api/v1/openapi.json',
    {},
    { IMAGE_TAG: 'test' },
  )
  expect(response.status).toBe(200)
  return (await response.json()) as Document
}

describe('request schemas', () => {
  it('should bound the length of every string a request can carry', async () => {
    const { unbounded, operations } = unboundedRequestStrings(await document())
    expect(operations, 'the walk found no operations').toBeGreaterThan(50)
    expect(unbounded).toEqual([])
  })

  it('should tell a bounded string from an unbounded one', () => {
    const unbounded = unboundedStrings(
      {
        type: 'object',
        properties: {
          free: { type: 'string' },
          capped: { type: 'string', maxLength: 10 },
          picked: { type: 'string', enum: ['a'] },
          loose: { type: 'string', pattern: '^[a-z]+$' },
          tight: { type: 'string', pattern: '^[a-z]{1,8}$' },
          referenced: { $ref: '#/components/schemas/Free' },
          nested: { anyOf: [{ type: 'array', items: { type: ['string', 'null'] } }] },
        },
      },
      'x',
      { Free: { type: 'string' } },
    )
    expect(unbounded).toEqual(['x.free', 'x.loose', 'x.referenced(Free)', 'x.nested<anyOf0>[]'])
  })
})
