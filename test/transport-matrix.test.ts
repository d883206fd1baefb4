import { env } from 'cloudflare:workers'
import { beforeAll, describe, expect, it } from 'vitest'
import { PERMISSIONS } from '../src/auth/permissions'
import { procedures } from '../src/rpc/registry'
import { procedureTargets } from '../src/rpc/transport'
import { type Caller, type CallResult, call, ORIGIN, send } from './helpers/http'
import { adminSession, tokenFor } from './helpers/principals'

// Transport parity and bad input for every procedure of the registry (the hand-picked cases in transport.test.ts
// show the shapes in detail): each POST face answers the same, refuses what is not JSON, and writes nothing.
let token: Caller
// What only a signed-in user's session may call (auth.changePassword) is called with one; a token gets 403.
let session: Caller

beforeAll(async () => {
  session = await adminSession()
  token = await tokenFor(session, [...PERMISSIONS])
})

async function auditCount(): Promise<number> {
  const row = await env.DB.prepare('SELECT count(*) AS n FROM audit_log').first<{ n: number }>()
  return row?.n ?? 0
}

const post = (caller: Caller, path: string, body: string, contentType: string) =>
  send(path, {
    method: 'POST',
    headers: caller.cookie
      ? { cookie: caller.cookie, origin: ORIGIN, 'content-type': contentType }
      : { authorization: `Bearer ${caller.token}`, 'content-type': contentType },
    body,
  })

const strip = (result: CallResult) => ({ ...(result.body as object), requestId: undefined })

const rows = [...procedures]
  .map(([name, proc]) => ({
    name,
    bySession: proc.permission === 'session',
    paths: procedureTargets(name, proc)
      .filter((target) => target.method === 'post')
      .map((target) => target.path),
  }))
  .filter((row) => row.paths.length > 0) // a GET-only procedure has no POST face

describe('every procedure on every POST face (generated from the registry)', () => {
  it.each(rows)(
    '$name should answer alike on RPC and REST and refuse bad bodies, writing nothing',
    async ({ name, paths, bySession }) => {
      const caller = bySession ? session : token
      const before = await auditCount()
      const rpc = await call(name, { matrixProbe: true }, caller, 'rpc')
      const hasFallback = paths.includes(`/api/v1/${name.replaceAll('.', '/')}`)
      if (hasFallback) {
        const rest = await call(name, { matrixProbe: true }, caller, 'rest')
        expect(rest.status, rest.text).toBe(rpc.status)
        expect(strip(rest)).toEqual(strip(rpc))
      }
      if (rpc.status !== 200) {
        expect(rpc.status, rpc.text).toBe(400)
        expect(rpc.body).toMatchObject({ code: 'validation_failed' })
        expect(rpc.text).toContain('matrixProbe')
      }
      for (const path of paths) {
        const broken = await post(caller, path, '{"unterminated', 'application/json')
        expect(broken.status, `${path}: ${broken.text}`).toBe(400)
        expect(broken.body).toMatchObject({ code: 'invalid_json' })
        const text = await post(caller, path, '{}', 'text/plain')
        expect(text.status, `${path}: ${text.text}`).toBe(415)
      }
      expect(await auditCount()).toBe(before)
    },
  )
})
