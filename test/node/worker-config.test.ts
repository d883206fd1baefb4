import { readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { DELIVERY_ATTEMPTS } from '../../src/changelog/jobs'
import { cronTasks } from '../../src/cron/tasks'
import { QUEUE_MAX_ATTEMPTS } from '../../src/jobs/failed-jobs'
import { backoffSeconds } from '../../src/lib/backoff'
import { testBindings } from '../worker-bindings'

const root = path.resolve(import.meta.dirname, '../..')
const toml = readFileSync(path.join(root, 'wrangler.toml'), 'utf8')
const DAY = 24 * 60 * 60

describe('wrangler.toml', () => {
  it('should retry queue jobs for at least a day and dead-letter them within the default 4-day retention', () => {
    const maxRetries = Number(toml.match(/^max_retries = (\d+)$/m)?.[1])
    expect(toml).toMatch(/^dead_letter_queue = "panel-jobs-dlq"$/m)
    expect(DELIVERY_ATTEMPTS).toBe(maxRetries + 1)
    expect(QUEUE_MAX_ATTEMPTS).toBe(maxRetries + 1)
    let waited = 0
    for (let attempt = 1; attempt <= maxRetries; attempt++) waited += backoffSeconds(attempt)
    expect(waited).toBeGreaterThanOrEqual(DAY)
    expect(waited).toBeLessThan(4 * DAY)
  })

  it('should declare exactly the cron expressions the cron tasks use', () => {
    const declared = JSON.parse(toml.match(/^crons = (\[.*\])$/m)?.[1] ?? '[]') as string[]
    expect(new Set(declared)).toEqual(new Set(cronTasks.map((task) => task.schedule)))
  })
})

describe('wrangler.toml secrets', () => {
  it('should declare no [secrets] list, which would keep the bootstrap pair in .dev.vars from wrangler dev', () => {
    expect(toml).not.toMatch(/^\[secrets\]/m)
  })
})

describe('test bindings', () => {
  it('should set every var and secret a local .dev.vars may hold, so npm test ignores that file', () => {
    const example = readFileSync(path.join(root, '.dev.vars.example'), 'utf8')
    const devVarNames = [...example.matchAll(/^#? ?([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1])
    const varsSection = toml.slice(toml.indexOf('[vars]'), toml.indexOf('\n[', toml.indexOf('[vars]') + 1))
    const tomlVarNames = [...varsSection.matchAll(/^([A-Z][A-Z0-9_]+) =/gm)].map((m) => m[1])
    expect(devVarNames).toContain('ENVIRONMENT')
    expect(tomlVarNames).toContain('IMAGE_TAG')
    for (const name of [...devVarNames, ...tomlVarNames]) expect(Object.keys(testBindings)).toContain(name)
    expect(testBindings.ENVIRONMENT).toBe('production')
  })
})
