import { z } from '@hono/zod-openapi'
import { describe, expect, it } from 'vitest'
import { PERMISSIONS } from '../../src/auth/permissions'
import { procedures } from '../../src/rpc/registry'
import { procedureTargets } from '../../src/rpc/transport'

describe('registry', () => {
  it('should give every procedure a dotted name, a known permission, and object input/output schemas', () => {
    const access = new Set<string>([...PERMISSIONS, 'public', 'authenticated', 'session'])
    for (const [name, proc] of procedures) {
      expect(name).toMatch(/^[a-z][a-zA-Z]*(\.[a-z][a-zA-Z]*)+$/)
      expect(access.has(proc.permission), `${name}: ${proc.permission}`).toBe(true)
      expect(proc.input, name).toBeInstanceOf(z.ZodType)
      expect(proc.output, name).toBeInstanceOf(z.ZodType)
      expect(proc.summary.length, name).toBeGreaterThan(0)
    }
  })

  it('should give every mutation an audit action and no query one', () => {
    for (const [name, proc] of procedures) {
      if (proc.kind === 'mutation') expect(proc.audit, name).toMatch(/^[a-z-]+\.[a-z-]+$/)
      else expect(proc.audit, name).toBeUndefined()
    }
  })

  it('should reject unknown input fields in every procedure', () => {
    for (const [name, proc] of procedures) {
      // A dedicated GET route reads its input from the query string, where clients and caches add parameters
      // of their own (a cache buster such as `?_=123`); refusing them would break plain browser and CDN use.
      if (proc.rest?.method === 'get') continue
      expect(proc.input.safeParse({ notAField: 1 }).success, name).toBe(false)
    }
  })

  it('should serve every procedure on unique paths', () => {
    const seen = new Map<string, string>()
    for (const [name, proc] of procedures) {
      for (const target of procedureTargets(name, proc)) {
        const key = `${target.method} ${target.path}`
        expect(seen.get(key), `${key} claimed by ${seen.get(key)} and ${name}`).toBeUndefined()
        seen.set(key, name)
      }
    }
  })
})
