import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { type Caller, call, ok, send } from '../helpers/http'
import { fakeOrigin } from '../helpers/outbound'
import { adminSession } from '../helpers/principals'
import { createProbe, type Probe, STATUS_ORIGIN } from './catalogue-fixture'

type Node = Record<string, unknown>
type Issues = { issues: { path: string; message: string }[] }

let admin: Caller
let doc: { paths: Record<string, { post: Node }>; components: { schemas: Record<string, Node> } }

beforeAll(async () => {
  admin = await adminSession()
  doc = (await send('/api/v1/openapi.json')).body as typeof doc
})

beforeEach(() => {
  fakeOrigin(STATUS_ORIGIN, () => new Response('ok'))
})

function requestBody(path: string): Node {
  const body = doc.paths[path]?.post.requestBody as { content: Record<string, { schema: Node }> }
  return body.content['application/json']?.schema as Node
}

const refs = (nodes: unknown) => (nodes as Node[]).map((node) => node.$ref)
const paths = (res: { body: Issues }) => res.body.issues.map((issue) => issue.path)

describe('probe config in the OpenAPI document', () => {
  it('should document probes.create as one body per type, each with that type config and no other', () => {
    const variants = requestBody('/api/v1/probes/create').oneOf as
      | { properties: Record<string, Node>; additionalProperties: boolean }[]
      | undefined
    expect(variants).toHaveLength(5)
    const byType = Object.fromEntries(
      (variants ?? []).map((variant) => [
        (variant.properties.type?.enum as string[] | undefined)?.[0],
        variant.properties,
      ]),
    )
    expect(Object.keys(byType).sort()).toEqual(['cert', 'dns', 'heartbeat', 'http', 'tcp'])
    expect(byType.http?.config).toEqual({ $ref: '#/components/schemas/HttpProbeConfig' })
    expect(byType.heartbeat?.config).toEqual({ $ref: '#/components/schemas/HeartbeatProbeConfig' })
    expect(byType.tcp?.notifyConfig).toEqual({ $ref: '#/components/schemas/ProbeNotifyConfig' })
    for (const variant of variants ?? []) expect(variant.additionalProperties).toBe(false)
    const http = doc.components.schemas.HttpProbeConfig as { properties: Node; additionalProperties: boolean }
    expect(http.additionalProperties).toBe(false)
    expect(http.properties.intervalSeconds).toMatchObject({ type: 'integer', minimum: 10, maximum: 86_400 })
    expect(Object.keys(doc.components.schemas.TcpProbeConfig?.properties as Node)).not.toContain('method')
  })

  it('should document probes.update config as the patch of any one type, keys nullable and unknown keys refused', () => {
    const update = requestBody('/api/v1/probes/update') as { properties: Record<string, Node> }
    expect(update.properties.config).toEqual({ $ref: '#/components/schemas/ProbeConfigPatch' })
    expect(update.properties.notifyConfig).toEqual({ $ref: '#/components/schemas/ProbeNotifyConfigPatch' })
    expect(refs(doc.components.schemas.ProbeConfigPatch?.anyOf)).toEqual(
      ['Tcp', 'Http', 'Dns', 'Cert', 'Heartbeat'].map(
        (type) => `#/components/schemas/${type}ProbeConfigPatch`,
      ),
    )
    const heartbeat = doc.components.schemas.HeartbeatProbeConfigPatch as {
      properties: Record<string, Node>
      additionalProperties: boolean
      required?: string[]
    }
    expect(heartbeat.additionalProperties).toBe(false)
    expect(heartbeat.required ?? []).toEqual([])
    expect(JSON.stringify(heartbeat.properties.graceSeconds)).toContain('"null"')
    expect(JSON.stringify(heartbeat)).not.toContain('"default"')
  })

  it('should read each config back through a union of the five type configs', () => {
    expect(refs(doc.components.schemas.ProbeConfig?.anyOf)).toEqual(
      ['Tcp', 'Http', 'Dns', 'Cert', 'Heartbeat'].map((type) => `#/components/schemas/${type}ProbeConfig`),
    )
  })
})

describe('probe config validation', () => {
  const base = { name: 'typed', targetKind: 'external', target: `${STATUS_ORIGIN}/health` }

  it('should refuse on create a wrong value, an unknown key or a key of another type, naming it', async () => {
    for (const [input, path] of [
      [{ type: 'http', config: { intervalSeconds: 'x' } }, 'config.intervalSeconds'],
      [{ type: 'http', config: { intervalSecond: 60 } }, 'config.intervalSecond'],
      [{ type: 'tcp', target: 'db.probes-example.com:5432', config: { method: 'GET' } }, 'config.method'],
      [{ type: 'http', notifyConfig: { maxPerHour: 0 } }, 'notifyConfig.maxPerHour'],
      [{ type: 'http', notifyConfig: { email: ['a@b.c'] } }, 'notifyConfig.email'],
    ] as const) {
      const res = await call<Issues>('probes.create', { ...base, ...input }, admin)
      expect(res.status, res.text).toBe(400)
      expect(paths(res)).toEqual([path])
    }
    const unknownType = await call<Issues>('probes.create', { ...base, type: 'ftp' }, admin)
    expect(unknownType.status).toBe(400)
    expect(unknownType.body.issues).toEqual([
      { path: 'type', message: 'expected one of http, tcp, dns, cert, heartbeat' },
    ])
    expect((await ok<Probe[]>('probes.list', {}, admin)).map((probe) => probe.name)).not.toContain('typed')
  })

  it('should refuse on update what no type takes, naming the key, and check the rest against the stored type', async () => {
    const http = await createProbe(admin, { config: { intervalSeconds: 300 } })
    const heartbeat = await createProbe(admin, { type: 'heartbeat', target: 'nightly backup' })
    for (const [config, path] of [
      [{ intervalSeconds: 'x' }, 'config.intervalSeconds'],
      [{ intervalSecond: 60 }, 'config.intervalSecond'],
      [{ method: 'PUT' }, 'config.method'],
      // A heartbeat's interval may be a week; an http probe's may not.
      [{ intervalSeconds: 604_800 }, 'config.intervalSeconds'],
    ] as const) {
      const res = await call<Issues>('probes.update', { id: http.id, config }, admin)
      expect(res.status, res.text).toBe(400)
      expect(paths(res)).toEqual([path])
    }
    const weekly = await ok<Probe>(
      'probes.update',
      { id: heartbeat.id, config: { intervalSeconds: 604_800, graceSeconds: null } },
      admin,
    )
    expect(weekly.config).toMatchObject({ intervalSeconds: 604_800, graceSeconds: 3600 })
    // The patch fills in nothing: keys it does not name keep their stored values.
    const patched = await ok<Probe>('probes.update', { id: http.id, config: { timeoutMs: 600 } }, admin)
    expect(patched.config).toMatchObject({ intervalSeconds: 300, timeoutMs: 600 })
    const notify = await call<Issues>('probes.update', { id: http.id, notifyConfig: { cooldown: 5 } }, admin)
    expect(paths(notify)).toEqual(['notifyConfig.cooldown'])
  })
})
