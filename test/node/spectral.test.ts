import { Document, type RulesetDefinition, Spectral } from '@stoplight/spectral-core'
import { Json } from '@stoplight/spectral-parsers'
import { oas } from '@stoplight/spectral-rulesets'
import { describe, expect, it } from 'vitest'
import { createApp } from '../../src/app'

async function lint(doc: unknown) {
  const spectral = new Spectral()
  // The rulesets package types its export more loosely than core expects; it is core's own format.
  spectral.setRuleset({ extends: [[oas as RulesetDefinition, 'recommended']] })
  const results = await spectral.run(new Document(JSON.stringify(doc), Json))
  return results.map((r) => ({
    severity: r.severity,
    rule: String(r.code),
    at: r.path.join('.'),
    message: r.message,
  }))
}

async function generated(): Promise<unknown> {
  const response = await createApp().request(
    'https://panel.test/api/v1/openapi.json',
    {},
    { IMAGE_TAG: 'test' },
  )
  expect(response.status).toBe(200)
  return response.json()
}

// Spectral takes seconds over the whole document on a busy machine.
const LINT_TIMEOUT_MS = 60_000

describe('Spectral (spectral:oas)', () => {
  it(
    'should report no error on the generated document',
    async () => {
      const results = await lint(await generated())
      const errors = results.filter((result) => result.severity === 0)
      expect(errors, JSON.stringify(errors, null, 1)).toEqual([])
      // Warnings are policy (info-contact); listing them makes a new kind show up in review.
      expect([...new Set(results.map((result) => result.rule))].sort()).toEqual(['info-contact'])
    },
    LINT_TIMEOUT_MS,
  )

  it(
    'should be able to say no: an array without items is an error',
    async () => {
      const loose = {
        openapi: '3.1.0',
        info: { title: 't', version: '1', description: 'd', contact: { name: 'c' } },
        servers: [{ url: 'https://panel.test' }],
        tags: [],
        paths: {},
        components: { schemas: { Loose: { type: 'array' } } },
      }
      const errors = (await lint(loose)).filter((result) => result.severity === 0)
      expect(errors.map((error) => error.rule)).toContain('array-items')
    },
    LINT_TIMEOUT_MS,
  )
})
