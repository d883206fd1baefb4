import { appendFile, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { CertificateAttemptWatch } from '../../node-agent/certificate-attempt-watch.ts'
import { PanelRefusal } from '../../node-agent/panel-report.ts'
import type { CertificateAttempt } from '../../src/agent-contract/certificate-attempts.ts'

// The agent follows the log file Caddy writes (appended to, rolled) and reports the newest outcome per served
// hostname in batches of at most 500, keeping a batch the panel could not take.

const FIXTURE = path.join(import.meta.dirname, 'fixtures/caddy-2.6.2-pebble-2.4.0-tls.jsonl')
// The real lines of one failing hostname, wrong.cap.test, from its first handshake to its first failure.
async function wrongLines(): Promise<string[]> {
  const lines = (await readFile(FIXTURE, 'utf8'))
    .split('\n')
    .filter((line) => line.includes('wrong.cap.test'))
  const failed = lines.findIndex((line) => line.includes('"could not get certificate from issuer"'))
  return lines.slice(0, failed + 2)
}

let dir = ''
let logFile = ''
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'agent-attempts-'))
  logFile = path.join(dir, 'caddy-tls.log')
})
afterEach(() => rm(dir, { recursive: true, force: true }))

function watch(report: (batch: readonly CertificateAttempt[]) => Promise<void>) {
  return new CertificateAttemptWatch({ logFile, serves: (h) => h.endsWith('.cap.test'), report })
}

describe('CertificateAttemptWatch', () => {
  it('should report 1,200 failing hostnames in calls of at most 500 and under 64 KiB', async () => {
    const lines = await wrongLines()
    const text = Array.from({ length: 1200 }, (_, i) =>
      lines.map((line) => line.replaceAll('wrong.cap.test', `h${i}.cap.test`)).join('\n'),
    ).join('\n')
    await writeFile(logFile, `${text}\n`)
    const calls: { count: number; bytes: number }[] = []
    const reported = new Set<string>()
    await watch(async (batch) => {
      calls.push({ count: batch.length, bytes: JSON.stringify({ attempts: batch }).length })
      for (const attempt of batch) reported.add(attempt.hostname)
    }).tick()
    expect(reported.size).toBe(1200)
    for (const call of calls) {
      expect(call.count).toBeLessThanOrEqual(500)
      expect(call.bytes).toBeLessThan(64 * 1024)
    }
    // Each outcome of wrong.cap.test is about 420 bytes of JSON: 140-odd a call.
    expect(calls.length).toBeLessThan(12)
  })

  it('should read only whole lines, and a rolled file from its start', async () => {
    const lines = await wrongLines()
    const reported: CertificateAttempt[] = []
    const agent = watch(async (batch) => void reported.push(...batch))
    const whole = lines.join('\n')
    const cut = whole.indexOf('"could not get certificate from issuer"')
    await writeFile(logFile, whole.slice(0, cut))
    await agent.tick()
    expect(reported).toEqual([])
    await appendFile(logFile, `${whole.slice(cut)}\n`)
    await agent.tick()
    expect(reported.map((o) => [o.hostname, o.error?.kind])).toEqual([['wrong.cap.test', 'unauthorized']])
    // Caddy rolls the file: renamed away, a new one begun.
    await rename(logFile, `${logFile}.1`)
    await writeFile(logFile, `${lines.join('\n').replaceAll('wrong.cap.test', 'new.cap.test')}\n`)
    await agent.tick()
    expect(reported.map((o) => o.hostname)).toEqual(['wrong.cap.test', 'new.cap.test'])
  })

  it('should keep a batch the panel could not take and drop one it refuses for good', async () => {
    await writeFile(logFile, `${(await wrongLines()).join('\n')}\n`)
    const answers: number[] = []
    let status = 503
    const agent = watch(async () => {
      answers.push(status)
      if (status !== 200) throw new PanelRefusal('POST', '/x', status)
    })
    await agent.tick()
    expect(answers).toEqual([503])
    // Paused for 30 s after a failure: the next read does not call.
    await agent.tick()
    expect(answers).toEqual([503])
    status = 404
    const old = watch(async () => {
      answers.push(status)
      throw new PanelRefusal('POST', '/x', status)
    })
    await old.tick()
    await old.tick()
    expect(answers).toEqual([503, 404])
  })
})
