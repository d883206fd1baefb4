import { env } from 'cloudflare:workers'
import { beforeAll, describe, expect, it } from 'vitest'
import { PERMISSIONS } from '../src/auth/permissions'
import { procedures } from '../src/rpc/registry'
import { procedureTargets } from '../src/rpc/transport'
import { type Caller, type CallResult, call, send } from './helpers/http'
import { adminSession, tokenFor } from './helpers/principals'

// Transport parity and bad input for every procedure of the registry (the hand-picked cases in transport.test.ts
// show the shapes in detail): each POST face answers the same, refuses what is not JSON, and writes nothing.
let token: Caller

beforeAll(async () => {
  token = await tokenFor(await adminSession(), [...PERMISSIONS])
})

async function auditCount(): Promise<number> {
  const row = await env.DB.prepare('SELECT count(*) AS n FROM audit_log').first<{ n: number }>()
  return row?.n ?? 0
}

const post = (path: string, body: string, contentType: string) =>
  send(path, {
    method: 'POST',
    headers: { authorization: `Bearer ${token.token}`, 'content-type': contentType },
    body,
  })

const strip = (result: CallResult) => ({ ...(result.body as object), requestId: undefined })

const rows = [...procedures].map(([name, proc]) => ({
  name,
  paths: procedureTargets(name, proc)
    .filter((target) => target.method === 'post')
    .map((target) => target.path),
}))

describe('every procedure on every POST face (generated from the registry)', () => {
  it.each(rows)(
    '$name should answer alike on RPC and REST and refuse bad bodies, writing nothing',
    async ({ name, paths }) => {
      const before = await auditCount()
      const rpc = await call(name, { matrixProbe: true }, token, 'rpc')
      const hasFallback = paths.includes(`/api/v1/${name.replaceAll('.', '/')}`)
      if (hasFallback) {
        const rest = await call(name, { matrixProbe: true }, token, 'rest')
        expect(rest.status, rest.text).toBe(rpc.status)
        expect(strip(rest)).toEqual(strip(rpc))
      }
      if (rpc.status !== 200) {
        expect(rpc.status, rpc.text).toBe(400)
        expect(rpc.body).toMatchObject({ code: 'validation_failed' })
        expect(rpc.text).toContain('matrixProbe')
      }
      for (const path of paths) {
        const broken = await post(path, '{"unterminated', 'application/json')
        expect(broken.status, `${path}: ${broken.text}`).toBe(400)
        expect(broken.body).toMatchObject({ code: 'invalid_json' })
        const text = await post(path, '{}', 'text/plain')
        expect(text.status, `${path}: ${text.text}`).toBe(415)
      }
      expect(await auditCount()).toBe(before)
    },
  )
})
