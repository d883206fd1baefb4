import { runDurableObjectAlarm } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { and, eq } from 'drizzle-orm'
import { beforeAll, describe, expect, it } from 'vitest'
import { db } from '../../src/db/client'
import { probeResults, probeRollups } from '../../src/db/schema/probes'
import type { Env } from '../../src/env'
import { randomSecret } from '../../src/lib/encoding'
import { ledgerFor } from '../../src/probes/heartbeat/ledger-api'
import { type Caller, type CallResult, ok, send } from '../helpers/http'
import { adminSession } from '../helpers/principals'

const workerEnv = env as unknown as Env
let admin: Caller

beforeAll(async () => {
  admin = await adminSession()
})

interface CreatedHeartbeat {
  id: string
  heartbeatToken: string
  heartbeatUrl: string
}

function createHeartbeat(config: Record<string, unknown> = {}): Promise<CreatedHeartbeat> {
  return ok<CreatedHeartbeat>(
    'probes.create',
    {
      name: `backup ${crypto.randomUUID().slice(0, 8)}`,
      type: 'heartbeat',
      targetKind: 'external',
      target: 'nightly backup',
      config,
    },
    admin,
  )
}

const pingPath = (token: string, suffix = '') => `/api/heartbeat/${token}${suffix}`
const live = (id: string) => workerEnv.PROBE_MONITOR.getByName(id).live()

/**
 * The answer with its request id taken out, after checking that nothing in it names the token or the path: the
 * token is the credential, and error bodies end up in client and proxy logs.
 */
function shape(answer: CallResult, path: string) {
  const token = path.split('/')[3] ?? ''
  const headers = [...answer.headers.entries()].map(([name, value]) => `${name}: ${value}`).join('\n')
  for (const told of [answer.text, headers]) {
    expect(told).not.toContain(token)
    expect(told).not.toContain('/api/heartbeat/')
    for (const part of token.split('_').filter((piece) => piece.length >= 8)) expect(told).not.toContain(part)
  }
  const body = JSON.parse(answer.text) as Record<string, unknown>
  return {
    status: answer.status,
    headers: [...answer.headers.keys()].sort(),
    contentType: answer.headers.get('content-type'),
    body: { ...body, requestId: typeof body.requestId },
  }
}

describe('heartbeat ping route', () => {
  it('should answer 200 OK, open to any origin and uncached, once the ping is recorded', async () => {
    const probe = await createHeartbeat()
    expect(probe.heartbeatUrl).toBe(`https://panel.test${pingPath(probe.heartbeatToken)}`)
    const answer = await send(pingPath(probe.heartbeatToken))
    expect(answer.status, answer.text).toBe(200)
    expect(answer.text).toBe('OK')
    expect(answer.headers.get('content-type')).toMatch(/^text\/plain/)
    expect(answer.headers.get('access-control-allow-origin')).toBe('*')
    expect(answer.headers.get('cache-control')).toBe('no-store')
    expect(await live(probe.id)).toMatchObject({ state: 'up', lastPing: { signal: 'success', body: '' } })
  })

  it('should take Healthchecks suffixes: /start, /fail and an exit status, 0 being success', async () => {
    const probe = await createHeartbeat()
    const path = (suffix: string) => pingPath(probe.heartbeatToken, suffix)
    expect((await send(path('/start'), { method: 'POST' })).status).toBe(200)
    expect((await live(probe.id))?.state).toBe('paused')
    expect((await send(path('/0'))).status).toBe(200)
    expect(await live(probe.id)).toMatchObject({
      state: 'up',
      lastPing: { exitStatus: 0, signal: 'success' },
    })
    expect((await send(path('/fail'))).status).toBe(200)
    expect((await live(probe.id))?.state).toBe('down')
    expect((await send(path('/255'))).status).toBe(200)
    expect((await live(probe.id))?.lastPing).toMatchObject({ signal: 'fail', exitStatus: 255 })
    expect((await send(path(''), { method: 'HEAD' })).status).toBe(200)
    expect((await live(probe.id))?.lastPing).toMatchObject({ signal: 'success', exitStatus: null })
    for (const suffix of ['/256', '/01', '/-1', '/log', '/start/x'])
      expect((await send(path(suffix))).status, suffix).toBe(404)
  })

  it('should keep the first 10,000 bytes of a POST body and never refuse a larger one', async () => {
    const probe = await createHeartbeat()
    const body = `${'x'.repeat(9_999)}é${'y'.repeat(70_000)}`
    const answer = await send(pingPath(probe.heartbeatToken), { method: 'POST', body })
    expect(answer.status, answer.text).toBe(200)
    const kept = (await live(probe.id))?.lastPing?.body ?? ''
    // The cut falls inside the two-byte é, which becomes one replacement character.
    expect(kept).toBe(`${'x'.repeat(9_999)}\uFFFD`)
  })

  it('should answer a wrong secret, a paused and an archived probe exactly as an unknown token, naming neither', async () => {
    const probe = await createHeartbeat()
    const wrong = probe.heartbeatToken.replace(/_[^_]+$/, `_${randomSecret()}`)
    const unknown = `hb_${crypto.randomUUID()}_${randomSecret()}`
    const reference = shape(await send(pingPath(unknown)), pingPath(unknown))
    expect(reference.status).toBe(404)
    expect(reference.body).toMatchObject({ code: 'not_found' })
    const malformed = '/api/heartbeat/not-a-token'
    expect(shape(await send(malformed), malformed)).toEqual(reference)
    expect(shape(await send(pingPath(wrong)), pingPath(wrong))).toEqual(reference)

    await ok('probes.setEnabled', { id: probe.id, enabled: false }, admin)
    const token = probe.heartbeatToken
    expect(shape(await send(pingPath(token)), pingPath(token))).toEqual(reference)
    expect(shape(await send(pingPath(token, '/fail'), { method: 'POST' }), pingPath(token, '/fail'))).toEqual(
      {
        ...reference,
        body: { ...reference.body, detail: 'no heartbeat probe answers POST at this URL' },
      },
    )
    await ok('probes.setEnabled', { id: probe.id, enabled: true }, admin)
    expect((await send(pingPath(token))).status).toBe(200)
    await ok('probes.archive', { id: probe.id }, admin)
    expect(shape(await send(pingPath(token)), pingPath(token))).toEqual(reference)
  })

  it('should record every ping of a burst: N answers of 200 are N recorded pings', async () => {
    const probe = await createHeartbeat()
    const answers = await Promise.all(Array.from({ length: 30 }, () => send(pingPath(probe.heartbeatToken))))
    const okCount = answers.filter((a) => a.status === 200).length
    expect(okCount).toBe(30)
    const database = db(workerEnv.DB)
    const monitor = workerEnv.PROBE_MONITOR.getByName(probe.id)
    // The first pings reach the monitor (kept in its storage); those after it told the ledger the probe is up are
    // the ledger's (written to D1).
    const raw = async () => [
      ...(await database
        .select()
        .from(probeResults)
        .where(and(eq(probeResults.probeId, probe.id), eq(probeResults.kind, 'raw')))),
      ...(await monitor.rawResults(0, Number.MAX_SAFE_INTEGER, null)),
    ]
    const hourlyUp = async () => {
      const hourly = await database
        .select()
        .from(probeRollups)
        .where(and(eq(probeRollups.probeId, probe.id), eq(probeRollups.granularity, 'hourly')))
      return hourly.reduce((total, r) => total + r.up, 0)
    }
    // The monitor writes its rollups once the hour closed (its alarm stands for that moment), the ledger a minute on.
    for (let i = 0; i < 5 && (await hourlyUp()) < okCount; i++) {
      await runDurableObjectAlarm(monitor)
      await runDurableObjectAlarm(ledgerFor(workerEnv, probe.id))
    }
    expect(await raw()).toHaveLength(okCount)
    expect(await hourlyUp()).toBe(okCount)
  })

  it('should be documented: GET and POST, with and without a signal, 200 text/plain or 404', async () => {
    const doc = (await (
      await send('/api/v1/openapi.json')
    ).body) as {
      paths: Record<
        string,
        Record<string, { operationId: string; responses: Record<string, { content?: object }> }>
      >
    }
    for (const path of ['/api/heartbeat/{token}', '/api/heartbeat/{token}/{signal}']) {
      for (const method of ['get', 'post']) {
        const op = doc.paths[path]?.[method]
        expect(op, `${method} ${path}`).toBeDefined()
        expect(Object.keys(op?.responses ?? {}).sort()).toEqual(['200', '404', '500'])
        expect(Object.keys(op?.responses['200']?.content ?? {})).toEqual(['text/plain'])
      }
    }
  })
})
